import { retryAfterSeconds } from './errors.js';

/** How answers that say "try again later" are handled. */
export interface RetryOptions {
  /** How many times a request answered 429 (or 503) with `Retry-After` is sent again. Default 2. */
  retries?: number;
  /**
   * The longest `Retry-After` waited for, in seconds; a longer one fails at once with the
   * `ApiError` (its `retryAfter` says how long), so a UI can tell the user. Default 10.
   */
  maxDelaySeconds?: number;
}

type Fetch = (request: Request) => Promise<Response>;

/**
 * Wraps `fetch` so that a 429, or a 503 (the database was busy and nothing changed), that carries
 * `Retry-After` is sent again after that many seconds. Each attempt sends a clone, since a
 * request's body can be read only once.
 */
export function honourRetryAfter(send: Fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 2;
  const maxDelaySeconds = options.maxDelaySeconds ?? 10;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await send(attempt < retries ? request.clone() : request);
      if (response.status !== 429 && response.status !== 503) return response;
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
