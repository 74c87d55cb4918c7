import { and, eq, gt, lte, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db } from './database';
import { named, preparedPerDb } from './prepared';

/*
 * The `rate_limits` table: fixed-window counters that every instance on the database shares,
 * for when there is no Redis to keep them. Each change is one statement (an upsert, an update),
 * so two instances counting the same key at once each see the other's points, on either store.
 */

export interface Counter {
  /** Points counted in the current window. */
  points: number;
  /** When the window ends (ISO 8601); the next point after it starts a new one. */
  expiresAt: string;
}

/** The statements joins and logins run, prepared once per connection. */
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
    giveBack: named(
      db
        .update(rateLimits)
        .set({ points: sql`${rateLimits.points} - 1` })
        .where(and(eq(rateLimits.key, sql.placeholder('key')), gt(rateLimits.expiresAt, now), gt(rateLimits.points, 0))),
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

/**
 * Gives one point back to `key`'s counter, if its window is still the current one and it holds
 * any: a point counted in a window that has ended is not owed to the next.
 */
export function giveBackToCounter(database: Database, key: string): Promise<void> {
  return database.transaction(async (tx) => {
    await statements(tx).giveBack.execute({ key, now: new Date().toISOString() });
  });
}

/** Forgets `key`'s counter. */
export function removeCounter(database: Database, key: string): Promise<void> {
  return database.transaction(async (tx) => {
    const { rateLimits } = tablesOf(tx);
    await tx.delete(rateLimits).where(eq(rateLimits.key, key));
  });
}

/** Deletes the counters whose window has ended (they would start again anyway). */
export function sweepCounters(database: Database): Promise<void> {
  return database.transaction(async (tx) => {
    const { rateLimits } = tablesOf(tx);
    await tx.delete(rateLimits).where(lte(rateLimits.expiresAt, new Date().toISOString()));
  });
}
