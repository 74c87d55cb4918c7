import { retryAfterSeconds } from './errors.js';

/** How answers that say "try again later", and writes cut off on their way, are handled. */
export interface RetryOptions {
  /**
   * How many times a request answered 429 or 503 with `Retry-After` (or a write answered 409
   * `idempotency_key_in_use`) is sent again, and how many times a write whose connection failed is.
   * Default 2.
   */
  retries?: number;
  /**
   * The longest `Retry-After` waited for, in seconds; a longer one fails at once with the
   * `ApiError` (its `retryAfter` says how long), so a UI can tell the user. Default 10.
   */
  maxDelaySeconds?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Waits before sending a write again after its connection failed: short, then longer. */
const NETWORK_RETRY_MS = [300, 1_000, 3_000];

/**
 * A fresh `Idempotency-Key`: 128 random bits, hex. `crypto.getRandomValues` works in every browser
 * context, `randomUUID` only in secure ones (a page served over plain HTTP on a LAN has none).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Gives every write an `Idempotency-Key` (docs/api.md#idempotent-writes), unless the caller set one, before any
 * retry: each attempt of a write carries the same key, so the server runs it at most once.
 */
export function withIdempotencyKeys(send: Fetch): Fetch {
  return (request) => {
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', newIdempotencyKey());
    return send(request);
  };
}

/**
 * Wraps `fetch` so that a 429, or a 503 (the database was busy and nothing changed), that carries
 * `Retry-After` is sent again after that many seconds, as is a write answered 409 while the same
 * key's first attempt still runs. A write with an `Idempotency-Key` whose connection failed (no
 * answer at all) is sent again too: the key makes a second delivery harmless. Each attempt sends a
 * clone, since a request's body can be read only once.
 */
export function honourRetryAfter(send: Fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 2;
  const maxDelaySeconds = options.maxDelaySeconds ?? 10;
  return async (request) => {
    const keyed = WRITES.has(request.method) && request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await send(attempt < retries ? request.clone() : request);
      } catch (err) {
        if (!keyed || attempt >= retries || request.signal.aborted) throw err;
        await sleep(NETWORK_RETRY_MS[Math.min(attempt, NETWORK_RETRY_MS.length - 1)]!, request.signal);
        continue;
      }
      const waitable =
        response.status === 429 ||
        response.status === 503 ||
        (keyed && response.status === 409 && response.headers.has('retry-after'));
      if (!waitable) return response;
      const wait = retryAfterSeconds(response.headers);
      if (wait === null || wait > maxDelaySeconds || attempt >= retries) return response;
      await response.body?.cancel();
      await sleep(wait * 1000, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
