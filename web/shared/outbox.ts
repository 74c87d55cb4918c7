import { ApiError, newIdempotencyKey } from 'workshop-sdk';

/*
 * The writes a person made that the server has not answered yet (the participant page's presses,
 * the console's forms), in the order they were made, kept in the browser (a reload keeps them)
 * and sent one at a time. `I` is what the person asked for, `R` the request it became. Each has its own
 * `Idempotency-Key` from the moment it is made: a write cut off on its way and sent again, by the
 * SDK's own retries or by this queue after the connection returns (or after a reload), carries
 * the same key and the same request, so the server runs it once (docs/api.md#idempotent-writes).
 */

export interface Waiting<I, R> {
  key: string;
  /** When the person made it (ms since the epoch). */
  madeAt: number;
  intent: I;
  /** What the page lists while it waits (“Idea “…” in “…””), in words. */
  label: string;
  /**
   * The request the intent became when it was first sent, worked out from what was known then.
   * Kept with the key and sent again as is.
   */
  request: R | null;
}

export interface OutboxHooks<I, R> {
  /** The request for an intent, from what is known now; null while that is not known yet (the outbox is kicked again then). */
  resolve(intent: I): R | null;
  /** Sends a request with its key and takes its answer in; rejects with the SDK's error. */
  send(request: R, key: string): Promise<void>;
  /** The server refused it for good (the step changed, no points left, …). */
  refused(item: Waiting<I, R>, error: ApiError): void;
  /** The token is no longer valid. */
  ended(): void;
  changed(): void;
}

/** `sending` while a request is out; `waiting` after one could not reach the server, until it is tried again. */
export type OutboxStatus = 'idle' | 'sending' | 'waiting';

/** Waits before sending again after a failure: short at first, then every 10 s. */
const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 10_000];
/**
 * The server keeps a key's answer 24 hours (docs/api.md#idempotent-writes): a write older than this may have landed
 * with its answer lost, and sent again after the key expired it would land twice. So it is not
 * sent again; the person is told.
 */
const SEND_WITHIN_MS = 23 * 3600 * 1000;

export class Outbox<I, R> {
  items: Waiting<I, R>[];
  status: OutboxStatus = 'idle';
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(
    private readonly storageKey: string,
    private readonly hooks: OutboxHooks<I, R>,
  ) {
    this.items = readStored<I, R>(storageKey);
    // Back online: send what waits at once rather than at the next retry.
    window.addEventListener('online', () => this.kick());
  }

  /** Keys sent (or given up) by this tab, so a merge with another tab's list does not bring them back. */
  private readonly finished = new Set<string>();

  add(intent: I, label: string): Waiting<I, R> {
    const item: Waiting<I, R> = { key: newIdempotencyKey(), madeAt: Date.now(), intent, label, request: null };
    this.items.push(item);
    this.store();
    this.hooks.changed();
    this.kick();
    return item;
  }

  /** Sends what waits now (a new write, the connection back). */
  kick(): void {
    if (this.stopped || this.status === 'sending' || this.items.length === 0) return;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    // Known to be offline: the `online` event sends it.
    if (!navigator.onLine) return this.setStatus('waiting');
    void this.run();
  }

  /** Forgets everything (the person left, or their session ended). */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.items = [];
    try {
      localStorage.removeItem(this.storageKey);
    } catch {
      // Nothing was stored.
    }
  }

  private async run(): Promise<void> {
    this.setStatus('sending');
    while (!this.stopped && this.items.length > 0) {
      const item = this.items[0]!;
      if (Date.now() - item.madeAt > SEND_WITHIN_MS) {
        this.done(item);
        this.hooks.refused(
          item,
          new ApiError(
            0,
            'too_old',
            'It waited more than a day to be sent, so it may have arrived already; do it again if it is missing.',
          ),
        );
        continue;
      }
      if (!item.request) {
        item.request = this.hooks.resolve(item.intent);
        if (!item.request) break;
        this.store();
      }
      try {
        await this.hooks.send(item.request, item.key);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.status === 401) {
          // Kept, waiting: a page that signs in again sends it with `kick()`.
          this.setStatus('waiting');
          this.hooks.ended();
          return;
        }
        if (retryable(err)) {
          this.retryLater(err instanceof ApiError ? err.retryAfter : null);
          return;
        }
        this.done(item);
        this.hooks.refused(item, err as ApiError);
        continue;
      }
      this.failures = 0;
      this.done(item);
    }
    this.setStatus('idle');
  }

  private done(item: Waiting<I, R>): void {
    this.finished.add(item.key);
    this.items = this.items.filter((waiting) => waiting !== item);
    this.store();
    this.hooks.changed();
  }

  private retryLater(retryAfterSeconds: number | null): void {
    const wait =
      retryAfterSeconds !== null
        ? retryAfterSeconds * 1000
        : BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
    this.failures += 1;
    this.setStatus('waiting');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.kick();
    }, wait);
  }

  private setStatus(status: OutboxStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.hooks.changed();
  }

  /**
   * Stores the list, merged with what another tab of the same workshop stored meanwhile, so one
   * tab's writes are not overwritten by another's list. A write both tabs know may be sent by each:
   * it carries one key, so it lands once.
   */
  private store(): void {
    try {
      const mine = new Set(this.items.map((item) => item.key));
      const theirs = readStored<I, R>(this.storageKey).filter(
        (item) => !mine.has(item.key) && !this.finished.has(item.key),
      );
      const merged = [...this.items, ...theirs].sort((a, b) => a.madeAt - b.madeAt);
      if (merged.length === 0) localStorage.removeItem(this.storageKey);
      else localStorage.setItem(this.storageKey, JSON.stringify(merged));
    } catch {
      // Storage refused (a private mode): the queue lives as long as the page.
    }
  }
}

/**
 * No answer (the network), or an answer that says “later”: a 5xx, a 429, the same key still
 * running. Anything else is the server's final word on that write.
 */
function retryable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  return err.status === 0 || err.status >= 500 || err.status === 429 || err.code === 'idempotency_key_in_use';
}

function readStored<I, R>(storageKey: string): Waiting<I, R>[] {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey) ?? '[]') as unknown;
    return Array.isArray(stored)
      ? (stored as Waiting<I, R>[]).filter(
          (item) => typeof item?.key === 'string' && typeof item.madeAt === 'number' && item.intent,
        )
      : [];
  } catch {
    return [];
  }
}
