import { ApiError, newIdempotencyKey } from 'workshop-sdk';
import type { Direction } from './votes';

/*
 * The writes a participant made that the server has not answered yet, in the order they were
 * made, kept in the browser (a reload keeps them) and sent one at a time. Each has its own
 * `Idempotency-Key` from the moment it is made: a write cut off on its way and sent again, by the
 * SDK's own retries or by this queue after the connection returns (or after a reload), carries
 * the same key and the same request, so the server runs it once (docs/api.md#idempotent-writes).
 */

/** What the person asked for. */
export type Intent =
  | { kind: 'card'; type: 'idea' | 'cluster'; title: string; parent: string | null }
  | { kind: 'vote'; cardId: string; direction: Direction }
  | { kind: 'rate'; cardId: string; criteriumId: string; value: number }
  | { kind: 'comment'; cardId: string; content: string }
  | { kind: 'item'; cardId: string; sectionId: string; content: string }
  | { kind: 'edit'; cardId: string; title: string }
  | { kind: 'delete'; cardId: string };

/**
 * The request an intent became when it was first sent, worked out from what was known then (a
 * − takes back which vote, a rating is new or a change). Kept with the key and sent again as is.
 */
export type Request =
  | { op: 'createCard'; type: 'idea' | 'cluster'; title: string; parent: string | null }
  | { op: 'castVote'; cardId: string; value: Direction }
  | { op: 'withdrawVote'; cardId: string; voteId: string }
  | { op: 'rate'; cardId: string; criteriumId: string; value: number }
  | { op: 'changeRating'; cardId: string; ratingId: string; value: number }
  | { op: 'comment'; cardId: string; content: string }
  | { op: 'addItem'; cardId: string; sectionId: string; content: string }
  | { op: 'editCard'; cardId: string; title: string }
  | { op: 'deleteCard'; cardId: string };

export interface Waiting {
  key: string;
  /** When the person made it (ms since the epoch). */
  madeAt: number;
  intent: Intent;
  /** What the page lists while it waits (“Idea “…” in “…””), in words. */
  label: string;
  request: Request | null;
}

export interface OutboxHooks {
  /** The request for an intent, from what is known now; null while that is not known yet (the outbox is kicked again then). */
  resolve(intent: Intent): Request | null;
  /** Sends a request with its key and takes its answer in; rejects with the SDK's error. */
  send(request: Request, key: string): Promise<void>;
  /** The server refused it for good (the step changed, no points left, …). */
  refused(item: Waiting, error: ApiError): void;
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

export class Outbox {
  items: Waiting[];
  status: OutboxStatus = 'idle';
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  /** The intents of one kind about one card still waiting, oldest first. */
  waitingOn<K extends Exclude<Intent['kind'], 'card'>>(kind: K, cardId: string): Array<Extract<Intent, { kind: K }>> {
    return this.items.flatMap(({ intent }) =>
      intent.kind === kind && 'cardId' in intent && intent.cardId === cardId
        ? [intent as Extract<Intent, { kind: K }>]
        : [],
    );
  }

  constructor(
    private readonly storageKey: string,
    private readonly hooks: OutboxHooks,
  ) {
    this.items = readStored(storageKey);
    // Back online: send what waits at once rather than at the next retry.
    window.addEventListener('online', () => this.kick());
  }

  /** Keys sent (or given up) by this tab, so a merge with another tab's list does not bring them back. */
  private readonly finished = new Set<string>();

  add(intent: Intent, label: string): Waiting {
    const item: Waiting = { key: newIdempotencyKey(), madeAt: Date.now(), intent, label, request: null };
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

  private done(item: Waiting): void {
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
      const theirs = readStored(this.storageKey).filter((item) => !mine.has(item.key) && !this.finished.has(item.key));
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

function readStored(storageKey: string): Waiting[] {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey) ?? '[]') as unknown;
    return Array.isArray(stored)
      ? (stored as Waiting[]).filter(
          (item) => typeof item?.key === 'string' && typeof item.madeAt === 'number' && item.intent,
        )
      : [];
  } catch {
    return [];
  }
}
