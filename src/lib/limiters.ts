import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { connectRedis } from './redis-pair';

/** A budget of `points` per window of `windowS` seconds, per key (a user, a socket, an address). */
export interface LimiterSpec {
  /** Names the counters (keys in Redis and in the database); unique per limit. */
  name: string;
  /** 0 means no limit: nothing is counted at all. */
  points: number;
  windowS: number;
}

export interface Limiter {
  /**
   * Takes `points` (1 by default) from `key`'s budget: null when they were there, otherwise the
   * seconds until the window starts again. A refused take still counts, as a retry in a loop should.
   */
  take(key: string, points?: number): Promise<number | null>;
  /** Gives back `points` (1 by default) taken in the current window: what a take turned out not to cost. */
  giveBack(key: string, points?: number): Promise<void>;
}

/**
 * Where every rate limit of an instance counts (`AppDeps.attempts`): in Redis with `REDIS_URL`,
 * else in the database with `DATABASE_URL`, so a budget is one for the service
 * (docs/configuration.md#limits-across-instances); else, one process on its SQLite file, in memory.
 */
export interface Limiters {
  /**
   * The limiter of one limit; a limit of 0 counts nothing and refuses nothing. Asked again for the
   * same name, the same limiter: two routes under one limit count in one budget, in memory too.
   */
  limiter(spec: LimiterSpec): Limiter;
  /** Whether the Redis connection is up (metrics); undefined without Redis. */
  redisUp(): boolean | undefined;
  close(): void;
}

/** What a limit of 0 becomes: nothing is counted, nothing refused. */
const unlimited: Limiter = { take: async () => null, giveBack: async () => {} };

/**
 * Limiters counting as `counting` does; the one place a limit of 0
 * (docs/configuration.md#rate-limits-and-caps) is turned off, and where one name gets one limiter
 * (Redis and database counters are shared by name anyway; memory counters would not be).
 */
export function limitersOver(counting: (spec: LimiterSpec) => Limiter, rest: Omit<Limiters, 'limiter'>): Limiters {
  const made = new Map<string, { spec: LimiterSpec; limiter: Limiter }>();
  return {
    ...rest,
    limiter(spec) {
      const known = made.get(spec.name);
      if (known) {
        if (known.spec.points !== spec.points || known.spec.windowS !== spec.windowS)
          throw new Error(`Two budgets for the limit "${spec.name}"`);
        return known.limiter;
      }
      const limiter = spec.points === 0 ? unlimited : counting(spec);
      made.set(spec.name, { spec, limiter });
      return limiter;
    },
  };
}

/** Whole seconds to wait, at least one (a `Retry-After`). */
export const secondsUntil = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** A rate-limiter-flexible limiter as a `Limiter`: its refusals become the seconds to wait; anything else is thrown on. */
function limiterOver(limiter: RateLimiterAbstract): Limiter {
  return {
    async take(key, taken = 1) {
      try {
        await limiter.consume(key, taken);
        return null;
      } catch (refused) {
        if (refused instanceof RateLimiterRes) return secondsUntil(refused.msBeforeNext);
        throw refused;
      }
    },
    async giveBack(key, given = 1) {
      await limiter.reward(key, given);
    },
  };
}

const memoryCounters = (spec: LimiterSpec) =>
  new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.windowS });

/**
 * Counters in this process: for one instance alone on its SQLite file, for what lives on one
 * instance only (a socket), and while shared counters cannot be reached.
 */
export function memoryLimiters(): Limiters {
  return limitersOver((spec) => limiterOver(memoryCounters(spec)), { redisUp: () => undefined, close() {} });
}

/**
 * Counters in Redis, on one connection of their own. While it is away each instance counts in
 * memory (rate-limiter-flexible's insurance) rather than failing requests or joins; the outage is
 * logged once, as the fan-out's are.
 */
export function redisLimiters(url: string): Limiters {
  const redis = connectRedis(url, { label: 'limits', meanwhile: 'each instance counts the rate limits on its own' });
  const counting = (spec: LimiterSpec) =>
    limiterOver(
      new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: `workshops:limits:${spec.name}`,
        points: spec.points,
        duration: spec.windowS,
        // Straight to the insurance while the connection is down, rather than a failed command first.
        rejectIfRedisNotReady: true,
        insuranceLimiter: memoryCounters(spec),
      }),
    );
  return limitersOver(counting, { redisUp: redis.healthy, close: redis.disconnect });
}
