import { Redis } from 'ioredis';

/** Reconnects quickly at first, then every 2 s at most, for as long as Redis is away. */
const retryStrategy = (attempt: number) => Math.min(100 * attempt, 2_000);

/** What the log line of an outage, and of its end, needs: whose connections, and what they do meanwhile. */
export interface RedisWatchOptions {
  label: string;
  /** What the instance does while Redis is away, for the log line; by default it serves its own clients only. */
  meanwhile?: string;
  onReady?: () => void;
  onRecovered?: () => void;
  log?: (message: string) => void;
}

/** One Redis connection and its state. */
export interface RedisConnection {
  client: Redis;
  /** The connection is up. A function, not a method: it is handed around unbound (metrics, readiness). */
  healthy: () => boolean;
  disconnect: () => void;
}

export interface RedisPair {
  /** Publishes fail at once while Redis is away (no offline queue: nothing stale is sent later). */
  pub: Redis;
  /** Keeps its queue, so subscriptions made during an outage apply on reconnect. */
  sub: Redis;
  /** Both connections are up. A function, not a method: it is handed around unbound. */
  healthy: () => boolean;
  /** Reports a failure seen by the caller (a refused publish); logged once per outage. */
  fault(reason: string): void;
  disconnect(): void;
}

/** Commands fail at once while Redis is away instead of waiting in a queue for it to return. */
const FAIL_FAST = { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy } as const;

/**
 * The two Redis connections a pub/sub fan-out needs, shared by the Socket.IO adapter and the Yjs
 * fan-out. Redis going away never stops an instance from serving its own clients: the outage is
 * logged once, ioredis keeps reconnecting, and `onRecovered` runs when both connections are back.
 */
export function connectRedisPair(url: string, options: RedisWatchOptions): RedisPair {
  const pub = new Redis(url, FAIL_FAST);
  const sub = new Redis(url, { maxRetriesPerRequest: null, retryStrategy });
  const watch = watchOutages(url, [pub, sub], options);
  // Libraries on these connections (the Socket.IO adapter) publish and (un)subscribe without
  // awaiting: a command refused while Redis is away, or cut off by disconnect() at shutdown, must
  // not become an unhandled rejection. Callers that await still see the refusal.
  guardFireAndForget(pub, ['publish'], () => watch.fault('publish refused'));
  guardFireAndForget(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], () =>
    watch.fault('subscription refused'),
  );
  return { pub, sub, ...watch };
}

/**
 * A Redis that accepts connections but does not answer (overloaded, or a network dropping packets)
 * fails a command of `connectRedis` after this long: its user's fallback takes over rather than
 * every request waiting for the operating system to give up on the connection.
 */
const COMMAND_TIMEOUT_MS = 500;

/**
 * One Redis connection whose commands fail at once while Redis is away, and after
 * `COMMAND_TIMEOUT_MS` while it does not answer, for a user with a fallback of its own (the
 * limits count in memory meanwhile); its outages are logged as a pair's.
 */
export function connectRedis(url: string, options: RedisWatchOptions): RedisConnection {
  const client = new Redis(url, { ...FAIL_FAST, commandTimeout: COMMAND_TIMEOUT_MS });
  const { healthy, disconnect } = watchOutages(url, [client], options);
  return { client, healthy, disconnect };
}

/** Logs an outage of `clients` once, and its end once all are back; `disconnect` closes them for good. */
function watchOutages(url: string, clients: Redis[], options: RedisWatchOptions): Omit<RedisPair, 'pub' | 'sub'> {
  const log = options.log ?? ((message: string) => console.warn(message));
  const meanwhile = options.meanwhile ?? "serving this instance's clients only";
  let inOutage = false;
  let closed = false;

  const healthy = () => clients.every((client) => client.status === 'ready');
  const fault = (reason: string) => {
    if (closed || inOutage) return;
    inOutage = true;
    log(`[${options.label}] Redis at ${redact(url)} unreachable (${reason}); ${meanwhile}, reconnecting`);
  };
  for (const client of clients) {
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
  return {
    healthy,
    fault,
    disconnect() {
      closed = true;
      // disconnect(), not quit(): a quit queued behind a dead connection would wait for Redis to return.
      for (const client of clients) client.disconnect();
    },
  };
}

function guardFireAndForget(
  client: Redis,
  commands: ReadonlyArray<'publish' | 'subscribe' | 'psubscribe' | 'unsubscribe' | 'punsubscribe'>,
  onRefused: () => void,
): void {
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
