import type { ClientRateLimitInfo, HonoConfigType, RedisClient, Store } from 'hono-rate-limiter';
import { MemoryStore, RedisStore } from 'hono-rate-limiter';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Database } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import { addToCounter, giveBackToCounter, removeCounter, sweepCounters, type Counter } from '../../db/rate-counters';
import { limiterOver, memoryLimiter, unlimited, type Limiter, type LimiterSpec } from '../../lib/limiters';
import { retryStrategy } from '../../lib/redis-pair';
import type { AppEnv } from '../env';

/** Where the rate limits keep their counters: the attempt limits' (`rate-limit.ts`) and the others' (`Limiter`). */
export interface AttemptStores {
  /** A store for one attempt limit. */
  create(): Store<AppEnv>;
  /** A limiter for one limit (joins per user, imports per minute), counting where the stores do; a limit of 0 counts nothing. */
  limiter(spec: LimiterSpec): Limiter;
  /** Whether the Redis connection is up (metrics); undefined without Redis, or before the first attempt opened it. */
  redisUp(): boolean | undefined;
  close(): void;
}

/**
 * Every instance's counters in one place, so a budget is one budget for the service (ten wrong
 * codes a minute, not ten per instance): in Redis when configured, otherwise in the database the
 * instances share (PostgreSQL, or SQLite's file on one host). While that store cannot be reached,
 * each instance counts on its own in memory rather than failing requests or joins.
 */
export function attemptStores(redisUrl: string | undefined, database: Database): AttemptStores {
  if (!redisUrl) return databaseCounters(database);
  let client: Redis | undefined;
  const connection = () =>
    (client ??= new Redis(redisUrl, {
      // Fail at once while Redis is away (the memory store takes over), instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy,
    }).on('error', () => {}));
  const commands: RedisClient = {
    scriptLoad: async (script) => String(await connection().script('LOAD', script)),
    evalsha: async <TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs) =>
      (await connection().evalsha(sha, keys.length, ...keys, ...args.map(String))) as TData,
    decr: (key) => connection().decr(key),
    del: (key) => connection().del(key),
  };
  return {
    create: () => new SharedOrLocalStore(new RedisStore<AppEnv>({ client: commands, prefix: 'workshops:attempts:' }), new MemoryStore<AppEnv>()),
    limiter: (spec) =>
      spec.points === 0
        ? unlimited
        : limiterOver(
            new RateLimiterRedis({
              storeClient: connection(),
              keyPrefix: `workshops:limits:${spec.name}`,
              points: spec.points,
              duration: spec.windowS,
              // Straight to the insurance while the connection is down, rather than a failed command first.
              rejectIfRedisNotReady: true,
              insuranceLimiter: memoryLimiter(spec),
            }),
          ),
    redisUp: () => (client ? client.status === 'ready' : undefined),
    close() {
      client?.disconnect();
    },
  };
}

/** The shared counters (Redis, or the database), or this instance's while they cannot be reached. */
class SharedOrLocalStore implements Store<AppEnv> {
  constructor(
    private readonly shared: Store<AppEnv>,
    private readonly local: Store<AppEnv>,
  ) {}

  init(options: HonoConfigType<AppEnv>): void {
    this.shared.init?.(options);
    this.local.init?.(options);
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    try {
      return await this.shared.increment(key);
    } catch {
      return this.local.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    try {
      await this.shared.decrement(key);
    } catch {
      await this.local.decrement(key);
    }
  }

  async resetKey(key: string): Promise<void> {
    await Promise.allSettled([this.shared.resetKey(key), this.local.resetKey(key)]);
  }
}

/** How often counters whose window has ended are deleted from the database. */
const SWEEP_MS = 10 * 60_000;

function databaseCounters(database: Database): AttemptStores {
  const sweeper = setInterval(() => {
    sweepCounters(database).catch((err: unknown) => {
      if (!isUnavailable(err)) console.error('[limits] sweeping old counters failed', err);
    });
  }, SWEEP_MS).unref();
  return {
    create: () => new SharedOrLocalStore(new DatabaseStore(database), new MemoryStore<AppEnv>()),
    limiter: (spec) => databaseLimiter(database, spec),
    redisUp: () => undefined,
    close() {
      clearInterval(sweeper);
    },
  };
}

/** An attempt limit's counters in the `rate_limits` table (`db/rate-counters.ts`). */
class DatabaseStore implements Store<AppEnv> {
  private windowMs = 60_000;

  constructor(private readonly database: Database) {}

  init(options: HonoConfigType<AppEnv>): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const counter = await reportingFaults(addToCounter(this.database, `attempts:${key}`, 1, this.windowMs));
    return { totalHits: counter.points, resetTime: new Date(counter.expiresAt) };
  }

  decrement(key: string): Promise<void> {
    return reportingFaults(giveBackToCounter(this.database, `attempts:${key}`));
  }

  async resetKey(key: string): Promise<void> {
    await removeCounter(this.database, `attempts:${key}`);
  }
}

/**
 * A limiter counting in the `rate_limits` table (`db/rate-counters.ts`), so instances sharing a
 * database without Redis share their budgets. While the database cannot be reached it counts in
 * this process, as rate-limiter-flexible's insurance limiter does for Redis.
 */
export function databaseLimiter(database: Database, spec: LimiterSpec): Limiter {
  if (spec.points === 0) return unlimited;
  const insurance = limiterOver(memoryLimiter(spec));
  return {
    async take(key, points = 1) {
      let counter: Counter;
      try {
        counter = await reportingFaults(addToCounter(database, `limits:${spec.name}:${key}`, points, spec.windowS * 1000));
      } catch {
        return insurance.take(key, points);
      }
      if (counter.points <= spec.points) return null;
      return Math.max(1, Math.ceil((Date.parse(counter.expiresAt) - Date.now()) / 1000));
    },
  };
}

/**
 * Lets a failed count in the database through to the in-memory fallback, logging it unless the
 * database is simply away (an outage is what the fallback is for; anything else is a fault).
 */
async function reportingFaults<T>(counting: Promise<T>): Promise<T> {
  try {
    return await counting;
  } catch (err) {
    if (!isUnavailable(err)) console.error('[limits] counting in the database failed; counting on this instance', err);
    throw err;
  }
}
