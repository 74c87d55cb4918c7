import { and, eq, gt, gte, lte, sql } from 'drizzle-orm';
import {
  limitersOver,
  memoryLimiters,
  secondsUntil,
  type Limiter,
  type Limiters,
  type LimiterSpec,
} from '../lib/limiters';
import { tablesOf, type Database, type Db } from './database';
import { isUnavailable } from './errors';
import { named, preparedPerDb } from './prepared';

/*
 * The `rate_limits` table: fixed-window counters that every instance on the database shares,
 * for when there is no Redis to keep them. Each count is one statement (an upsert), so two
 * instances counting the same key at once each see the other's points, on either store.
 */

export interface Counter {
  /** Points counted in the current window. */
  points: number;
  /** When the window ends (ISO 8601); the next point after it starts a new one. */
  expiresAt: string;
}

/** The statements the limits run, prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { rateLimits } = tablesOf(db);
  const now = sql.placeholder('now');
  const ended = sql`${rateLimits.expiresAt} <= ${now}`;
  return {
    add: named(
      db
        .insert(rateLimits)
        .values({ key: sql.placeholder('key'), points: sql.placeholder('points'), expiresAt: sql.placeholder('until') })
        .onConflictDoUpdate({
          target: rateLimits.key,
          set: {
            points: sql`CASE WHEN ${ended} THEN excluded.points ELSE ${rateLimits.points} + excluded.points END`,
            expiresAt: sql`CASE WHEN ${ended} THEN excluded.expires_at ELSE ${rateLimits.expiresAt} END`,
          },
        })
        .returning({ points: rateLimits.points, expiresAt: rateLimits.expiresAt }),
      'rate_limits_add',
    ),
    read: named(
      db
        .select({ points: rateLimits.points, expiresAt: rateLimits.expiresAt })
        .from(rateLimits)
        .where(and(eq(rateLimits.key, sql.placeholder('key')), gt(rateLimits.expiresAt, now))),
      'rate_limits_read',
    ),
    // Only within the window the points were taken in, and never below nothing.
    giveBack: named(
      db
        .update(rateLimits)
        .set({ points: sql`${rateLimits.points} - ${sql.placeholder('points')}` })
        .where(
          and(
            eq(rateLimits.key, sql.placeholder('key')),
            gt(rateLimits.expiresAt, now),
            gte(rateLimits.points, sql.placeholder('points')),
          ),
        ),
      'rate_limits_give_back',
    ),
  };
});

/**
 * Adds `points` to `key`'s counter and answers the counter after it. A counter whose window has
 * ended starts again from `points`, for `windowMs` from now.
 */
export function addToCounter(database: Database, key: string, points: number, windowMs: number): Promise<Counter> {
  const now = Date.now();
  const values = { key, points, now: new Date(now).toISOString(), until: new Date(now + windowMs).toISOString() };
  return database.transaction(async (tx) => ((await statements(tx).add.execute(values)) as Counter[])[0]!);
}

/** Takes `points` back off `key`'s counter in its current window (a counter whose window ended is left alone). */
export async function takeFromCounter(database: Database, key: string, points: number): Promise<void> {
  await database.transaction((tx) => statements(tx).giveBack.execute({ key, points, now: new Date().toISOString() }));
}

/** `key`'s counter in its current window; none when nothing was counted since the last one ended. Writes nothing. */
export async function readCounter(database: Database, key: string): Promise<Counter | undefined> {
  return ((await statements(database.db).read.execute({ key, now: new Date().toISOString() })) as Counter[])[0];
}

/** Deletes the counters whose window has ended (they would start again anyway). */
export function sweepCounters(database: Database): Promise<void> {
  return database.transaction(async (tx) => {
    const { rateLimits } = tablesOf(tx);
    await tx.delete(rateLimits).where(lte(rateLimits.expiresAt, new Date().toISOString()));
  });
}

/** How often counters whose window has ended are deleted. */
const SWEEP_MS = 10 * 60_000;

/**
 * Limiters counting in the `rate_limits` table, so instances sharing a database without Redis
 * share their budgets. While the database cannot be reached each counts in this process, as
 * rate-limiter-flexible's insurance limiter does for Redis.
 */
export function databaseLimiters(database: Database): Limiters {
  const sweeper = setInterval(() => {
    sweepCounters(database).catch((err: unknown) => {
      if (!isUnavailable(err)) console.error('[limits] sweeping old counters failed', err);
    });
  }, SWEEP_MS).unref();
  const insurance = memoryLimiters();
  return limitersOver((spec) => databaseLimiter(database, spec, insurance.limiter(spec)), {
    redisUp: () => undefined,
    close() {
      clearInterval(sweeper);
    },
  });
}

function databaseLimiter(database: Database, spec: LimiterSpec, insurance: Limiter): Limiter {
  const keyOf = (key: string) => `limits:${spec.name}:${key}`;
  /** The seconds until `counter`'s window ends when it holds more than `allowed` points; otherwise null. */
  const beyond = (counter: Counter, allowed: number) =>
    counter.points > allowed ? secondsUntil(Date.parse(counter.expiresAt) - Date.now()) : null;
  return {
    async take(key, points = 1) {
      let counter: Counter;
      try {
        counter = await addToCounter(database, keyOf(key), points, spec.windowS * 1000);
      } catch (err) {
        reportFault(err);
        return insurance.take(key, points);
      }
      return beyond(counter, spec.points);
    },
    async giveBack(key, points = 1) {
      try {
        await takeFromCounter(database, keyOf(key), points);
      } catch (err) {
        reportFault(err);
        await insurance.giveBack(key, points);
      }
    },
  };
}

/** Logs a count the database failed, unless it is simply away (an outage is what the insurance is for; anything else is a fault). */
function reportFault(err: unknown): void {
  if (!isUnavailable(err)) console.error('[limits] counting in the database failed; counting on this instance', err);
}
