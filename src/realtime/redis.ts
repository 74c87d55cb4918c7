import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';

/** How long a cross-instance request (`fetchSockets`) waits for the other instances. */
const REQUEST_TIMEOUT_MS = 2_000;
/** How long the start waits for Redis before serving local clients only (it keeps retrying). */
const READY_WAIT_MS = 3_000;

export interface RedisFanout {
  /** The Socket.IO adapter: rooms and broadcasts span every instance on this Redis. */
  adapter: ReturnType<typeof createAdapter>;
  /** Whether both connections are up; while they are not, rooms are served locally. */
  healthy(): boolean;
  /** Resolves once both connections are up, or after a short wait if Redis cannot be reached. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const retryStrategy = (attempt: number) => Math.min(100 * attempt, 2_000);

/**
 * Two ioredis connections (publish, subscribe) for the Socket.IO Redis adapter. While Redis is
 * away each instance keeps serving its own clients: publishes fail at once instead of queueing
 * (a queue would deliver stale broadcasts after the outage; clients catch up by `seq` instead),
 * the subscriber reconnects and resubscribes on its own, and the fault is logged once per outage.
 */
export function connectRedis(url: string, log: (message: string) => void = (m) => console.warn(m)): RedisFanout {
  const pub = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy, lazyConnect: false });
  // The subscriber queues its (re)subscriptions until connected; it never runs anything else.
  const sub = new Redis(url, { maxRetriesPerRequest: null, retryStrategy });

  let inOutage = false;
  let closing = false;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
    setTimeout(resolve, READY_WAIT_MS).unref();
  });

  const healthy = () => pub.status === 'ready' && sub.status === 'ready';
  const fault = (reason: string) => {
    if (closing || inOutage) return;
    inOutage = true;
    log(`[realtime] Redis at ${redact(url)} unreachable (${reason}); serving this instance's clients only, reconnecting`);
  };
  for (const client of [pub, sub]) {
    client.on('ready', () => {
      if (!healthy()) return;
      markReady();
      if (inOutage) {
        inOutage = false;
        log(`[realtime] Redis at ${redact(url)} reachable again; instances share rooms again`);
      }
    });
    client.on('error', (err: Error) => fault(err.message));
    client.on('close', () => fault('connection closed'));
  }

  // The adapter publishes without awaiting; a publish refused during an outage must not become an
  // unhandled rejection (the fault is already logged).
  const publish = pub.publish.bind(pub) as (...args: unknown[]) => Promise<number>;
  (pub as unknown as { publish: typeof publish }).publish = (...args) => {
    const sent = publish(...args);
    sent.catch(() => fault('publish refused'));
    return sent;
  };

  const adapter = createAdapter(pub, sub, { requestsTimeout: REQUEST_TIMEOUT_MS });
  return {
    adapter,
    healthy,
    ready,
    async close() {
      closing = true;
      markReady();
      // disconnect(), not quit(): a quit queued behind a dead connection would wait for Redis to return.
      pub.disconnect();
      sub.disconnect();
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
