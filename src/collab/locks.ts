import type { Db } from '../db/database';
import { DatabaseUnavailable } from '../db/errors';
import { KeyedLock, LockTimeout } from '../lib/keyed-lock';
import type { OpenWrite, TransactionHooks } from './types';

/**
 * How long a document's lock is waited for before the wait answers as the database would after
 * waiting as long for a row (503, docs/operations.md#when-the-database-is-away-or-busy). Its
 * holders outside writes run without awaiting anything, and those inside writes hold the workshop's
 * row first: a longer wait means a write that is stuck, and nobody must queue behind it forever.
 */
export const DOCUMENT_LOCK_WAIT_MS = 1_000;

/**
 * One lock per workshop document: what the event loop serialized for free when the database was
 * synchronous. Whatever changes a loaded document, or reads it for a client, holds it, so no
 * client is ever sent a change that is not stored yet and no change interleaves with another.
 *
 * The order is always: the write transaction and its workshop's row first (SQLite's writer, or
 * PostgreSQL's row lock), then the document's lock, never the other way round; `holdFor` takes
 * both in that order. A write holds the lock until it commits or rolls back. Work outside writes
 * (reads, loading, joining, relays from other instances) holds it only for synchronous work: it
 * reads the database before taking it, so a write holding the database never waits on it.
 */
export class DocumentLocks {
  private readonly locks = new KeyedLock();
  private readonly held = new WeakMap<TransactionHooks, Set<string>>();

  constructor(
    /** Locks the workshop's row in a write (`Database.lockWorkshop`: free when already held, as in writes to that workshop). */
    private readonly lockRow: (tx: Db, workshopId: string) => Promise<void>,
  ) {}

  /** Holds the workshop's row and then its document's lock for the rest of `write` (taken once per write). */
  async holdFor(write: OpenWrite, workshopId: string): Promise<void> {
    let ids = this.held.get(write.changes);
    if (ids?.has(workshopId)) return;
    await this.lockRow(write.tx, workshopId);
    const release = await bounded(this.locks.acquire(workshopId, DOCUMENT_LOCK_WAIT_MS));
    if (!ids) this.held.set(write.changes, (ids = new Set()));
    ids.add(workshopId);
    // Registered first, so it runs before the write's relays; both run in one go, nothing between.
    write.changes.afterCommit(release);
    write.changes.onRollback(release);
  }

  /**
   * Runs `fn` holding the workshop's lock, outside any write; a wait past `DOCUMENT_LOCK_WAIT_MS`
   * throws `DatabaseUnavailable`. `fn` must not open a write.
   */
  run<T>(workshopId: string, fn: () => Promise<T> | T): Promise<T> {
    return bounded(this.locks.run(workshopId, fn, DOCUMENT_LOCK_WAIT_MS));
  }

  /** How many hold or wait for the workshop's lock now (diagnostics). */
  queue(workshopId: string): number {
    return this.locks.queue(workshopId);
  }

  /** `run` without a bound on the wait, for clean-up nobody waits for (unloading). */
  runWhenFree<T>(workshopId: string, fn: () => Promise<T> | T): Promise<T> {
    return this.locks.run(workshopId, fn);
  }
}

async function bounded<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    if (err instanceof LockTimeout)
      throw new DatabaseUnavailable(`A workshop document stayed locked more than ${err.waitedMs} ms.`, { cause: err });
    throw err;
  }
}
