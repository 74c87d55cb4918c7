import type { ClientRateLimitInfo, HonoConfigType, RedisClient, Store } from 'hono-rate-limiter';
import { MemoryStore, RedisStore } from 'hono-rate-limiter';
import { Redis } from 'ioredis';
import { retryStrategy } from '../../lib/redis-pair';
import type { AppEnv } from '../env';

/** Where the attempt limits (`rate-limit.ts`) keep their counters. */
export interface AttemptStores {
  /** A store for one limit; undefined means the limiter's own in-memory store. */
  create(): Store<AppEnv> | undefined;
  close(): void;
}

/**
 * With Redis, the counters live there, so a budget is one budget across every instance (ten wrong
 * codes a minute, not ten per instance). While Redis is away each instance counts on its own
 * rather than failing requests. Without Redis, each limiter counts in memory.
 */
export function attemptStores(redisUrl: string | undefined): AttemptStores {
  if (!redisUrl) return { create: () => undefined, close() {} };
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
    close() {
      client?.disconnect();
    },
  };
}

/** The shared (Redis) counters, or this instance's while they cannot be reached. */
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
