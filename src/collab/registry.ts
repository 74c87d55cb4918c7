import * as Y from 'yjs';
import type { Db } from '../db/client';
import { findAccess } from '../modules/access/load';
import { mergeCaptured, mergedUpdate, WorkshopDocument, type Captured, type DocumentClient } from './document';
import { checkClientUpdate, leftPending, RefusedUpdate } from './guard';
import { samePlacement, sameZone } from './layout';
import { CLOSE, updateMessage } from './protocol';
import type { RedisFanout } from './redis-fanout';
import { reconcileWithSql, repairClientChange } from './repair';
import type { DocumentStore, StoredDocument } from './store';
import type { CardPlacement } from './types';

export interface CollabOptions {
  /** How long a document stays loaded after its last client left. */
  graceMs: number;
  /** How long a document used only through REST stays loaded after its last use. */
  idleMs: number;
  /** Stored updates after which a document is compacted into its snapshot. */
  compactAfter: number;
  /**
   * A large document is compacted only once its stored updates weigh at least 1/compactRatio of
   * its snapshot: compacting costs the document's size, so this keeps it a small share of the
   * work, while a load still reads at most (1 + 1/compactRatio) times the document's size.
   */
  compactRatio: number;
}

export const DEFAULT_COLLAB_OPTIONS: CollabOptions = { graceMs: 5_000, idleMs: 60_000, compactAfter: 100, compactRatio: 8 };

/** Transaction origins: changes the server makes itself, and changes already stored elsewhere. */
export const SERVER = Symbol('server');
export const REMOTE = Symbol('remote');

export interface RegistryHooks {
  /** Fan-out to other instances, when Redis is configured. */
  fanout(): RedisFanout | undefined;
  /** A loaded document's awareness changed (`origin`: the client that changed it, REMOTE, or null). */
  awareness(entry: WorkshopDocument, changed: number[], origin: unknown): void;
}

/**
 * The loaded documents of this instance: loading (snapshot + updates since, then reconciled with
 * SQL), unloading, and every change to them. A change is stored in SQLite, with the SQL copy, in
 * one transaction before any client or other instance hears of it.
 */
export class DocumentRegistry {
  private readonly docs = new Map<string, WorkshopDocument>();
  /** Set once the service closes: documents are then unloaded right after each use. */
  closed = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly db: Db,
    readonly options: CollabOptions,
    private readonly hooks: RegistryHooks,
  ) {}

  loaded(workshopId: string): WorkshopDocument | undefined {
    return this.docs.get(workshopId);
  }

  all(): WorkshopDocument[] {
    return [...this.docs.values()];
  }

  /** The workshop's document, loaded when needed; undefined when the workshop does not exist. */
  open(workshopId: string): WorkshopDocument | undefined {
    return this.docs.get(workshopId) ?? this.load(workshopId);
  }

  /** Runs `fn` on the workshop's document for a service call; it stays loaded a while if idle. */
  use<T>(workshopId: string, fn: (entry: WorkshopDocument) => T): T | undefined {
    const entry = this.open(workshopId);
    if (!entry) return undefined;
    // A read answers with what is stored, even what another instance's relay has not brought yet.
    if (!this.store.sqlite.inTransaction) this.refresh(entry);
    if (this.docs.get(workshopId) !== entry) return undefined;
    try {
      return fn(entry);
    } finally {
      if (this.docs.get(workshopId) === entry && entry.clients.size === 0) this.unloadLater(entry, this.options.idleMs);
    }
  }

  private load(workshopId: string): WorkshopDocument | undefined {
    if (!this.store.workshopExists(workshopId)) return undefined;
    const entry = new WorkshopDocument(workshopId);
    const stored = this.store.read(workshopId);
    applyStored(entry, stored);
    countStored(entry, stored);
    entry.snapshotVersion = stored.version;
    entry.lastUpdateId = stored.updates.at(-1)?.id ?? 0;
    entry.awareness.on('update', ({ added, updated, removed }: AwarenessChange, origin: unknown) =>
      this.hooks.awareness(entry, [...added, ...updated, ...removed], origin),
    );
    this.docs.set(workshopId, entry);
    // What other instances stored between the read above and the subscription taking effect was
    // published to nobody here: once Redis confirms it, the stored updates are read again.
    this.hooks.fanout()?.subscribe(workshopId).then(
      () => {
        if (this.docs.get(workshopId) === entry) this.resync(entry);
      },
      () => {},
    );
    // Reconciling writes; a caller reading inside its own transaction must not have those writes
    // roll back with it, so then it waits until that transaction is over.
    if (this.store.sqlite.inTransaction) this.reconcileLater(entry);
    else this.reconcile(entry);
    return this.docs.get(workshopId) === entry ? entry : undefined;
  }

  private reconcileLater(entry: WorkshopDocument) {
    queueMicrotask(() => {
      if (this.docs.get(entry.workshopId) !== entry) return;
      if (this.store.sqlite.inTransaction) setImmediate(() => this.reconcileLater(entry));
      else this.reconcile(entry);
    });
  }

  private reconcile(entry: WorkshopDocument) {
    const cards = this.store.cards(entry.workshopId);
    const zones = this.store.zones(entry.workshopId);
    let placements = new Map<string, CardPlacement>();
    this.serverChange(entry, () => (placements = reconcileWithSql(entry, cards, zones)), () => {
      for (const card of cards) {
        const placement = placements.get(card.id);
        if (placement && !samePlacement(placement, card)) this.store.writeCard(entry.workshopId, card.id, placement);
      }
      for (const zone of zones) {
        const state = entry.zone(zone.id);
        if (state && !sameZone(state, zone)) this.store.writeZone(entry.workshopId, zone.id, state);
      }
    });
  }

  unloadLater(entry: WorkshopDocument, ms: number) {
    clearTimeout(entry.unloadTimer);
    if (this.closed) return this.unload(entry, { compact: true });
    entry.unloadTimer = setTimeout(() => {
      if (entry.clients.size === 0) this.unload(entry, { compact: true });
    }, ms);
    entry.unloadTimer.unref();
  }

  unload(entry: WorkshopDocument, options: { compact: boolean; close?: { code: number; reason: string } }) {
    if (this.docs.get(entry.workshopId) !== entry) return;
    clearTimeout(entry.unloadTimer);
    if (options.compact && entry.storedUpdates > 0) this.compact(entry);
    this.docs.delete(entry.workshopId);
    this.hooks.fanout()?.unsubscribe(entry.workshopId);
    const close = options.close ?? CLOSE.retry;
    for (const client of entry.clients) client.close(close.code, close.reason);
    entry.clients.clear();
    entry.destroy();
  }

  /**
   * Something failed between changing the document in memory and committing it: the copy in
   * memory may hold what SQLite does not, so it is dropped. Its clients reconnect, sync from what
   * is stored, and send again what was lost.
   */
  private fail(entry: WorkshopDocument, err: unknown) {
    console.error(`[collab] could not store a change to workshop ${entry.workshopId}; reloading its document`, err);
    this.unload(entry, { compact: false, close: CLOSE.retry });
  }

  /** A change the server makes (REST placements, zones, reconciling): stored, copied to SQL, relayed. */
  serverChange(entry: WorkshopDocument, fn: () => void, alsoInTransaction?: () => void): void {
    let update: Uint8Array | null = null;
    let caught: Captured | undefined;
    try {
      this.store.transaction(() => {
        // The write lock is held from here: with everything stored applied first, values the
        // change keeps (a position-only patch keeps x and y) are the stored ones, never a stale copy's.
        caught = this.catchUp(entry);
        const captured = entry.collect(() => entry.doc.transact(fn, SERVER));
        this.copyToSql(entry, captured);
        alsoInTransaction?.();
        update = mergedUpdate(captured.updates);
        if (update) entry.lastUpdateId = this.store.append(entry.workshopId, update);
      });
    } catch (err) {
      this.fail(entry, err);
      return;
    }
    if (caught) this.relayCaught(entry, caught);
    if (update) this.stored(entry, update);
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
  private refresh(entry: WorkshopDocument) {
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
   * may not do repaired (`repair.ts`), and all of it stored with the SQL copy in one transaction;
   * only then do the other clients and instances get it. The sender gets the repairs.
   */
  clientChange(entry: WorkshopDocument, client: DocumentClient, userId: string, update: Uint8Array): void {
    let stored: Uint8Array | null = null;
    let repair: Uint8Array | null = null;
    let caught: Captured | undefined;
    let refused = false;
    let pending = false;
    let member = true;
    try {
      this.store.transaction(() => {
        caught = this.catchUp(entry);
        const access = findAccess(this.db, entry.workshopId, userId);
        if (!access) {
          member = false;
          return;
        }
        try {
          checkClientUpdate(entry.doc, update);
        } catch (err) {
          if (!(err instanceof RefusedUpdate)) throw err;
          refused = true;
          return;
        }
        const applied = entry.collect(() => Y.applyUpdate(entry.doc, update, client));
        if (leftPending(entry.doc)) {
          // Nothing of it is stored (the transaction rolls back) and the copy is reloaded below.
          pending = true;
          throw new RefusedUpdate('update left pending structs');
        }
        if (applied.updates.length === 0) return;
        const repairs = entry.collect(() => entry.doc.transact(() => repairClientChange(entry, this.store, access, applied), SERVER));
        const all = mergeCaptured(applied, repairs);
        this.copyToSql(entry, all);
        stored = mergedUpdate(all.updates)!;
        repair = mergedUpdate(repairs.updates);
        entry.lastUpdateId = this.store.append(entry.workshopId, stored);
      });
    } catch (err) {
      if (pending) {
        client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
        this.unload(entry, { compact: false, close: CLOSE.retry });
      } else this.fail(entry, err);
      return;
    }
    if (caught) this.relayCaught(entry, caught);
    if (!member) {
      client.close(CLOSE.notFound.code, CLOSE.notFound.reason);
      return;
    }
    if (refused) {
      client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
      return;
    }
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
    this.applyToSqlCopy(entry, captured);
    this.relayCaught(entry, captured);
  }

  /** After an update is stored: relay it, tell other instances, compact when due. */
  private stored(entry: WorkshopDocument, update: Uint8Array, from?: DocumentClient) {
    entry.broadcast(updateMessage(update), from);
    this.hooks.fanout()?.publish(entry.workshopId, 'update', update);
    entry.storedUpdates += 1;
    entry.storedBytes += update.byteLength;
    const { compactAfter, compactRatio } = this.options;
    if (entry.storedUpdates > compactAfter && entry.storedBytes * compactRatio >= entry.snapshotBytes) this.compact(entry);
  }

  private copyToSql(entry: WorkshopDocument, captured: Captured) {
    for (const cardId of captured.cards.keys()) {
      const placement = entry.placement(cardId);
      if (placement) this.store.writeCard(entry.workshopId, cardId, placement);
    }
    for (const zoneId of captured.zones.keys()) {
      const zone = entry.zone(zoneId);
      if (zone) this.store.writeZone(entry.workshopId, zoneId, zone);
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
      this.applyToSqlCopy(entry, captured);
      this.relayCaught(entry, captured);
    } catch (err) {
      this.fail(entry, err);
    }
  }

  /** Updates already stored elsewhere that this copy had missed: only its own clients need them. */
  private relayCaught(entry: WorkshopDocument, captured: Captured) {
    const update = mergedUpdate(captured.updates);
    if (update) entry.broadcast(updateMessage(update));
  }

  private applyToSqlCopy(entry: WorkshopDocument, captured: Captured) {
    if (captured.cards.size === 0 && captured.zones.size === 0) return;
    try {
      this.store.transaction(() => this.copyToSql(entry, captured));
    } catch (err) {
      console.error(`[collab] could not update the SQL copy of workshop ${entry.workshopId}`, err);
    }
  }
}

interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/** What a copy knows of its stored form after reading it (a snapshot is read only when it changed). */
function countStored(entry: WorkshopDocument, stored: StoredDocument) {
  entry.storedUpdates = stored.updates.length;
  entry.storedBytes = stored.updates.reduce((sum, { update }) => sum + update.byteLength, 0);
  if (stored.snapshot) entry.snapshotBytes = stored.snapshot.byteLength;
}

function applyStored(entry: WorkshopDocument, stored: StoredDocument) {
  entry.doc.transact(() => {
    if (stored.snapshot) Y.applyUpdate(entry.doc, stored.snapshot, REMOTE);
    for (const { update } of stored.updates) Y.applyUpdate(entry.doc, update, REMOTE);
  }, REMOTE);
}
