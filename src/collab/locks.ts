import { KeyedLock } from '../lib/keyed-lock';
import type { OpenWrite, TransactionHooks } from './types';

/**
 * One lock per workshop document: what the event loop serialized for free when the database was
 * synchronous. Whatever changes a loaded document, or reads it for a client, holds it, so no
 * client is ever sent a change that is not stored yet and no change interleaves with another.
 *
 * The order is always: the write transaction first (its workshop's row, or SQLite's writer),
 * then the document's lock, never the other way round. A write holds the lock until it commits or
 * rolls back; work outside writes (reads, loading) holds it only while it runs and must not open a
 * write transaction meanwhile.
 */
export class DocumentLocks {
  private readonly locks = new KeyedLock();
  private readonly held = new WeakMap<TransactionHooks, Set<string>>();

  /** Holds the workshop's lock for the rest of `write` (taken once per write). */
  async holdFor(write: OpenWrite, workshopId: string): Promise<void> {
    let ids = this.held.get(write.changes);
    if (ids?.has(workshopId)) return;
    const release = await this.locks.acquire(workshopId);
    if (!ids) this.held.set(write.changes, (ids = new Set()));
    ids.add(workshopId);
    // Registered first, so it runs before the write's relays; both run in one go, nothing between.
    write.changes.afterCommit(release);
    write.changes.onRollback(release);
  }

  /** Whether `write` holds the workshop's lock. */
  holds(write: OpenWrite, workshopId: string): boolean {
    return this.held.get(write.changes)?.has(workshopId) ?? false;
  }

  /** Runs `fn` holding the workshop's lock, outside any write. */
  run<T>(workshopId: string, fn: () => Promise<T> | T): Promise<T> {
    return this.locks.run(workshopId, fn);
  }
}
