import * as Y from 'yjs';
import { findAccess } from '../modules/access/load';
import { write, type WriteDeps } from '../modules/events/recorder';
import { recordLayoutChange } from './change-log';
import { applyStored, countStored, mergeCaptured, mergedUpdate, REMOTE, SERVER, type Captured, type DocumentClient, type WorkshopDocument } from './document';
import { checkClientUpdate, leftPending, RefusedUpdate } from './guard';
import type { Extensions } from './hooks';
import { CLOSE, updateMessage } from './protocol';
import { repairClientChange } from './repair';
import type { DocumentStore, StoredDocument } from './store';
import type { LayoutCopy, TransactionHooks } from './types';

export interface CompactionOptions {
  /** Stored updates after which a document is compacted into its snapshot. */
  compactAfter: number;
  /**
   * A large document is compacted only once its stored updates weigh at least 1/compactRatio of
   * its snapshot: compacting costs the document's size, so this keeps it a small share of the
   * work, while a load still reads at most (1 + 1/compactRatio) times the document's size.
   */
  compactRatio: number;
}

/**
 * Every change to a loaded document: stored in SQLite (`yjs_updates`) with the SQL copy of what it
 * changed, in one transaction, before any client or other instance hears of it. Server changes
 * made inside a REST write transaction are stored in it and relayed only once it commits.
 */
export class DocumentPersistence {
  constructor(
    private readonly store: DocumentStore,
    private readonly layout: LayoutCopy,
    private readonly events: WriteDeps,
    private readonly extensions: Extensions,
    private readonly options: CompactionOptions,
    /** Drops a loaded document whose memory may hold what SQLite does not; its clients reconnect. */
    private readonly drop: (entry: WorkshopDocument) => void,
  ) {}

  /**
   * Something failed between changing the document in memory and committing it: the copy in
   * memory may hold what SQLite does not, so it is dropped. Its clients reconnect, sync from what
   * is stored, and send again what was lost.
   */
  private fail(entry: WorkshopDocument, err: unknown) {
    console.error(`[collab] could not store a change to workshop ${entry.workshopId}; reloading its document`, err);
    this.drop(entry);
  }

  /**
   * A change the server makes (REST placements, zones, reconciling): stored, copied to SQL,
   * relayed. With `tx`, it runs inside the caller's open transaction: relayed after that commits,
   * the document dropped if it rolls back, and a failure is the caller's failure.
   */
  serverChange(entry: WorkshopDocument, fn: () => void, options: { alsoInTransaction?: () => void; tx?: TransactionHooks } = {}): void {
    let update: Uint8Array | null = null;
    let caught: Captured | undefined;
    try {
      this.store.transaction(() => {
        // The write lock is held from here: with everything stored applied first, values the
        // change keeps (a position-only patch keeps x and y) are the stored ones, never a stale copy's.
        caught = this.catchUp(entry);
        const captured = entry.collect(() => entry.doc.transact(fn, SERVER));
        this.copyToSql(entry, captured);
        options.alsoInTransaction?.();
        update = mergedUpdate(captured.updates);
        if (update) entry.lastUpdateId = this.store.append(entry.workshopId, update);
      });
    } catch (err) {
      this.fail(entry, err);
      if (options.tx) throw err;
      return;
    }
    const relay = () => {
      if (caught) this.relayCaught(entry, caught);
      if (update) this.stored(entry, update);
    };
    if (!options.tx) return relay();
    options.tx.afterCommit(relay);
    options.tx.onRollback(() => this.drop(entry));
  }

  /**
   * Applies what SQLite holds beyond this copy (stored by another instance, its relay not here
   * yet) and copies it to SQL. Runs inside the caller's transaction; the caller relays the result.
   */
  private catchUp(entry: WorkshopDocument): Captured {
    const stored = this.store.readNewer(entry.workshopId, entry.snapshotVersion, entry.lastUpdateId);
    if (!stored.snapshot && stored.updates.length === 0) return { cards: new Map(), zones: new Map(), updates: [] };
    const captured = entry.collect(() => applyStored(entry, stored));
    this.noteRead(entry, stored);
    this.copyToSql(entry, captured);
    return captured;
  }

  /** `catchUp` in a transaction of its own, then relayed to this instance's clients. */
  refresh(entry: WorkshopDocument): void {
    let caught: Captured | undefined;
    try {
      this.store.transaction(() => (caught = this.catchUp(entry)));
    } catch (err) {
      this.fail(entry, err);
      return;
    }
    this.relayCaught(entry, caught!);
  }

  private noteRead(entry: WorkshopDocument, stored: StoredDocument) {
    if (stored.snapshot) countStored(entry, stored);
    else {
      entry.storedUpdates += stored.updates.length;
      entry.storedBytes += stored.updates.reduce((sum, { update }) => sum + update.byteLength, 0);
    }
    entry.snapshotVersion = stored.version;
    entry.lastUpdateId = Math.max(entry.lastUpdateId, stored.updates.at(-1)?.id ?? 0);
  }

  /**
   * An update from a client of this instance: membership is checked, the update applied, what it
   * may not do repaired (`repair.ts`), and all of it stored with the SQL copy, and the placements
   * and zones it changed logged (`change-log.ts`), in one transaction; only then do the other
   * clients, instances and Socket.IO screens get it. The sender gets the repairs.
   */
  clientChange(entry: WorkshopDocument, client: DocumentClient, userId: string, update: Uint8Array): void {
    let stored: Uint8Array | null = null;
    let repair: Uint8Array | null = null;
    let caught: Captured | undefined;
    let outcome = 'stored' as 'stored' | 'notMember' | 'refused' | 'pending';
    try {
      write(this.events, (_tx, changes) => {
        caught = this.catchUp(entry);
        const access = findAccess(this.events.database.db, entry.workshopId, userId);
        if (!access) return void (outcome = 'notMember');
        try {
          checkClientUpdate(entry.doc, update);
        } catch (err) {
          if (!(err instanceof RefusedUpdate)) throw err;
          return void (outcome = 'refused');
        }
        const applied = entry.collect(() => Y.applyUpdate(entry.doc, update, client));
        if (leftPending(entry.doc)) {
          // Nothing of it is stored (the transaction rolls back) and the copy is reloaded below.
          outcome = 'pending';
          throw new RefusedUpdate('update left pending structs');
        }
        if (applied.updates.length === 0) return;
        const repairs = entry.collect(() => entry.doc.transact(() => repairClientChange(entry, this.layout, access, applied), SERVER));
        const all = mergeCaptured(applied, repairs);
        this.copyToSql(entry, all);
        recordLayoutChange(changes, entry, userId, all);
        stored = mergedUpdate(all.updates)!;
        repair = mergedUpdate(repairs.updates);
        entry.lastUpdateId = this.store.append(entry.workshopId, stored);
      });
    } catch (err) {
      if (outcome === 'pending') {
        client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
        this.drop(entry);
      } else this.fail(entry, err);
      return;
    }
    if (caught) this.relayCaught(entry, caught);
    if (outcome === 'notMember') return client.close(CLOSE.notFound.code, CLOSE.notFound.reason);
    if (outcome === 'refused') return client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
    if (!stored) return;
    this.stored(entry, stored, client);
    if (repair) client.send(updateMessage(repair));
  }

  /**
   * An update another instance stored. The SQL copy is rewritten from this copy's merged state,
   * so that when concurrent moves met on two instances, SQL ends on what the document converged to.
   */
  remoteChange(entry: WorkshopDocument, update: Uint8Array): void {
    let captured: Captured;
    try {
      captured = entry.collect(() => Y.applyUpdate(entry.doc, update, REMOTE));
    } catch (err) {
      console.error('[collab] dropped an update from another instance that did not apply', err);
      return;
    }
    this.relayCaught(entry, this.applyToSqlCopy(entry, captured));
  }

  /** After an update is committed: relay it, call `onStoreDocument` (other instances), compact when due. */
  private stored(entry: WorkshopDocument, update: Uint8Array, from?: DocumentClient) {
    entry.broadcast(updateMessage(update), from);
    this.extensions.call('onStoreDocument', entry, update);
    entry.storedUpdates += 1;
    entry.storedBytes += update.byteLength;
    const { compactAfter, compactRatio } = this.options;
    if (entry.storedUpdates > compactAfter && entry.storedBytes * compactRatio >= entry.snapshotBytes) this.compact(entry);
  }

  private copyToSql(entry: WorkshopDocument, captured: Captured) {
    for (const cardId of captured.cards.keys()) {
      const placement = entry.placement(cardId);
      if (placement) this.layout.writeCard(entry.workshopId, cardId, placement);
    }
    for (const zoneId of captured.zones.keys()) {
      const zone = entry.zone(zoneId);
      if (zone) this.layout.writeZone(entry.workshopId, zoneId, zone);
    }
  }

  /**
   * Merges the stored updates into the snapshot and deletes them, in one transaction. Whatever
   * SQLite holds that this copy lacks (stored by another instance, not relayed yet) is applied
   * first, so the snapshot never loses it.
   */
  compact(entry: WorkshopDocument): void {
    let captured: Captured | undefined;
    let compacted: StoredDocument | undefined;
    try {
      this.store.transaction(() => {
        const stored = this.store.readSince(entry.workshopId, entry.snapshotVersion);
        captured = entry.collect(() => applyStored(entry, stored));
        this.copyToSql(entry, captured);
        const state = Y.encodeStateAsUpdate(entry.doc);
        const version = this.store.compact(entry.workshopId, state, stored.updates.at(-1)?.id ?? null, stored.version);
        compacted = { snapshot: state, version, updates: [] };
        entry.lastUpdateId = Math.max(entry.lastUpdateId, stored.updates.at(-1)?.id ?? 0);
      });
    } catch (err) {
      console.error(`[collab] could not compact the document of workshop ${entry.workshopId}`, err);
      return;
    }
    entry.snapshotVersion = compacted!.version;
    countStored(entry, compacted!);
    this.relayCaught(entry, captured!);
  }

  /** Re-reads what SQLite holds for a loaded document (after a Redis outage, or when asked). */
  resync(entry: WorkshopDocument): void {
    try {
      const stored = this.store.readSince(entry.workshopId, entry.snapshotVersion);
      const captured = entry.collect(() => applyStored(entry, stored));
      entry.snapshotVersion = stored.version;
      countStored(entry, stored);
      entry.lastUpdateId = Math.max(entry.lastUpdateId, stored.updates.at(-1)?.id ?? 0);
      this.relayCaught(entry, this.applyToSqlCopy(entry, captured));
    } catch (err) {
      this.fail(entry, err);
    }
  }

  /** Updates already stored elsewhere that this copy had missed: only its own clients need them. */
  private relayCaught(entry: WorkshopDocument, captured: Captured) {
    const update = mergedUpdate(captured.updates);
    if (update) entry.broadcast(updateMessage(update));
  }

  /**
   * Writes the SQL copy of what updates stored elsewhere changed in this copy; returns those
   * changes with whatever catching up added, for relaying. Under the write lock everything stored
   * is applied first: a copy still missing a newer update (its relay not here yet) would otherwise
   * write an older value over the one that update's instance wrote, leaving SQL behind the document.
   */
  private applyToSqlCopy(entry: WorkshopDocument, captured: Captured): Captured {
    if (captured.cards.size === 0 && captured.zones.size === 0) return captured;
    let caught: Captured | undefined;
    try {
      this.store.transaction(() => {
        caught = this.catchUp(entry);
        this.copyToSql(entry, captured);
      });
    } catch (err) {
      console.error(`[collab] could not update the SQL copy of workshop ${entry.workshopId}`, err);
    }
    return caught ? mergeCaptured(captured, caught) : captured;
  }
}
