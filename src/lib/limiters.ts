import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** A budget of `points` per window of `windowS` seconds, per key (a user, a socket). */
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
}

/** What a limit of 0 becomes: nothing is counted, nothing refused. */
export const unlimited: Limiter = { take: async () => null };

/** Answers `limiter`'s refusals as the seconds to wait; anything else is thrown on. */
export function limiterOver(limiter: RateLimiterAbstract): Limiter {
  return {
    async take(key, points = 1) {
      try {
        await limiter.consume(key, points);
        return null;
      } catch (refused) {
        if (refused instanceof RateLimiterRes) return Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
        throw refused;
      }
    },
  };
}

/** Counters in this process: for what lives on one instance only (a socket), and while shared counters cannot be reached. */
export function memoryLimiter(spec: LimiterSpec): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.windowS });
}

/** A limiter counting in this process alone; none at all for a limit of 0. */
export function instanceLimiter(spec: LimiterSpec): Limiter {
  return spec.points === 0 ? unlimited : limiterOver(memoryLimiter(spec));
}
