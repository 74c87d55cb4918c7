import { createAdapter } from '@socket.io/redis-adapter';
import { connectRedisPair } from '../lib/redis-pair';

/** How long a cross-instance request (`fetchSockets`) waits for the other instances. */
const REQUEST_TIMEOUT_MS = 2_000;
/** How long the start waits for Redis before serving local clients only (it keeps retrying). */
const READY_WAIT_MS = 3_000;

export interface RedisFanout {
  /** The Socket.IO adapter: rooms and broadcasts span every instance on this Redis. */
  adapter: ReturnType<typeof createAdapter>;
  /** Whether both connections are up; while they are not, rooms are served locally. Handed around unbound. */
  healthy: () => boolean;
  /** Resolves once both connections are up, or after a short wait if Redis cannot be reached. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * The Socket.IO Redis adapter over a pair of connections (`connectRedisPair`). While Redis is away
 * each instance keeps serving its own clients: publishes fail at once instead of queueing (a queue
 * would deliver stale broadcasts after the outage; clients catch up by `seq` instead).
 */
export function connectRedis(
  url: string,
  options: { log?: (message: string) => void; onRecovered?: () => void } = {},
): RedisFanout {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
    setTimeout(resolve, READY_WAIT_MS).unref();
  });
  const redis = connectRedisPair(url, {
    label: 'realtime',
    ...(options.log ? { log: options.log } : {}),
    ...(options.onRecovered ? { onRecovered: options.onRecovered } : {}),
    onReady: () => {
      if (redis.healthy()) markReady();
    },
  });
  const { pub, sub } = redis;
  const adapter = createAdapter(pub, sub, { requestsTimeout: REQUEST_TIMEOUT_MS });
  return {
    adapter,
    healthy: redis.healthy,
    ready,
    async close() {
      markReady();
      redis.disconnect();
    },
  };
}
