import { Redis } from 'ioredis';

/** Reconnects quickly at first, then every 2 s at most, for as long as Redis is away. */
export const retryStrategy = (attempt: number) => Math.min(100 * attempt, 2_000);

export interface RedisPair {
  /** Publishes fail at once while Redis is away (no offline queue: nothing stale is sent later). */
  pub: Redis;
  /** Keeps its queue, so subscriptions made during an outage apply on reconnect. */
  sub: Redis;
  /** Both connections are up. */
  healthy(): boolean;
  /** Reports a failure seen by the caller (a refused publish); logged once per outage. */
  fault(reason: string): void;
  disconnect(): void;
}

/**
 * The two Redis connections a pub/sub fan-out needs, shared by the Socket.IO adapter and the Yjs
 * fan-out. Redis going away never stops an instance from serving its own clients: the outage is
 * logged once, ioredis keeps reconnecting, and `onRecovered` runs when both connections are back.
 */
export function connectRedisPair(
  url: string,
  options: { label: string; onReady?: () => void; onRecovered?: () => void; log?: (message: string) => void },
): RedisPair {
  const log = options.log ?? ((message: string) => console.warn(message));
  const pub = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy });
  const sub = new Redis(url, { maxRetriesPerRequest: null, retryStrategy });
  let inOutage = false;
  let closed = false;

  const healthy = () => pub.status === 'ready' && sub.status === 'ready';
  const fault = (reason: string) => {
    if (closed || inOutage) return;
    inOutage = true;
    log(`[${options.label}] Redis at ${redact(url)} unreachable (${reason}); serving this instance's clients only, reconnecting`);
  };
  for (const client of [pub, sub]) {
    client.on('error', (err: Error) => fault(err.message));
    client.on('close', () => fault('connection closed'));
    client.on('ready', () => {
      options.onReady?.();
      if (closed || !inOutage || !healthy()) return;
      inOutage = false;
      log(`[${options.label}] Redis at ${redact(url)} reachable again`);
      options.onRecovered?.();
    });
  }
  // Libraries on these connections (the Socket.IO adapter) publish and (un)subscribe without
  // awaiting: a command refused while Redis is away, or cut off by disconnect() at shutdown, must
  // not become an unhandled rejection. Callers that await still see the refusal.
  guardFireAndForget(pub, ['publish'], () => fault('publish refused'));
  guardFireAndForget(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], () => fault('subscription refused'));
  return {
    pub,
    sub,
    healthy,
    fault,
    disconnect() {
      closed = true;
      // disconnect(), not quit(): a quit queued behind a dead connection would wait for Redis to return.
      pub.disconnect();
      sub.disconnect();
    },
  };
}

function guardFireAndForget(client: Redis, commands: ReadonlyArray<'publish' | 'subscribe' | 'psubscribe' | 'unsubscribe' | 'punsubscribe'>, onRefused: () => void): void {
  const methods = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const command of commands) {
    const original = methods[command]!.bind(client);
    methods[command] = (...args) => {
      const sent = original(...args);
      sent.catch(onRefused);
      return sent;
    };
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
