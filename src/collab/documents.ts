import { write, type WriteDeps } from '../modules/events/recorder';
import { recordLayoutChange } from './change-log';
import { applyStored, countStored, WorkshopDocument } from './document';
import type { Extensions } from './hooks';
import { samePlacement, sameZone } from './layout';
import { DocumentPersistence, type CompactionOptions } from './persistence';
import { CLOSE } from './protocol';
import { reconcileWithSql } from './repair';
import type { DocumentStore, StoredDocument } from './store';
import type { CardPlacement, LayoutCopy, TransactionHooks } from './types';

export interface CollabOptions extends CompactionOptions {
  /** How long a document stays loaded after its last client left. */
  graceMs: number;
  /** How long a document used only through REST stays loaded after its last use. */
  idleMs: number;
}

export const DEFAULT_COLLAB_OPTIONS: CollabOptions = { graceMs: 5_000, idleMs: 60_000, compactAfter: 100, compactRatio: 8 };

/**
 * The loaded documents of this instance and their life: loading (snapshot + updates since, then
 * reconciled with SQL), use by services, unloading. Changes go through `persistence`. Extensions
 * hear `onLoadDocument`, `afterUnloadDocument` and `onAwarenessUpdate` from here.
 */
export class DocumentLifecycle {
  private readonly docs = new Map<string, WorkshopDocument>();
  readonly persistence: DocumentPersistence;
  /** Set once the service closes: documents are then unloaded right after each use. */
  closed = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly layout: LayoutCopy,
    readonly options: CollabOptions,
    private readonly extensions: Extensions,
    private readonly events: WriteDeps,
  ) {
    this.persistence = new DocumentPersistence(store, layout, events, extensions, options, (entry) =>
      this.unload(entry, { compact: false, close: CLOSE.retry }),
    );
  }

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

  /** What SQLite holds of a workshop's document (snapshot and updates since), without loading it. */
  stored(workshopId: string): StoredDocument {
    return this.store.read(workshopId);
  }

  /** What SQLite holds beyond snapshot `version` and update `afterId` (see `DocumentStore.readNewer`). */
  storedAfter(workshopId: string, version: string | null, afterId: number): StoredDocument {
    return this.store.readNewer(workshopId, version, afterId);
  }

  /** Runs `fn` on the workshop's document for a service call; it stays loaded a while if idle. */
  use<T>(workshopId: string, fn: (entry: WorkshopDocument) => T): T | undefined {
    return this.useEntry(this.open(workshopId), fn, { keepLoaded: true });
  }

  /**
   * `use`, when this instance has the document loaded; undefined otherwise, loading nothing. Such
   * reads do not keep an idle document loaded longer: they would be answered without it.
   */
  useIfLoaded<T>(workshopId: string, fn: (entry: WorkshopDocument) => T): T | undefined {
    return this.useEntry(this.docs.get(workshopId), fn, { keepLoaded: false });
  }

  private useEntry<T>(entry: WorkshopDocument | undefined, fn: (entry: WorkshopDocument) => T, options: { keepLoaded: boolean }): T | undefined {
    if (!entry) return undefined;
    const workshopId = entry.workshopId;
    // A read answers with what is stored, even what another instance's relay has not brought yet.
    if (!this.store.sqlite.inTransaction) this.persistence.refresh(entry);
    if (this.docs.get(workshopId) !== entry) return undefined;
    try {
      return fn(entry);
    } finally {
      if (options.keepLoaded) this.idle(entry);
    }
  }

  /**
   * Runs `fn` on the workshop's document inside the caller's write transaction. A document not yet
   * brought in line with SQL is reconciled first, in that transaction too: if it rolls back, the
   * document is dropped anyway (see `DocumentPersistence.serverChange`).
   */
  useInTransaction(workshopId: string, tx: TransactionHooks, fn: (entry: WorkshopDocument) => void): void {
    if (!this.store.sqlite.inTransaction) throw new Error('useInTransaction needs an open write transaction');
    const entry = this.open(workshopId);
    if (!entry) return;
    if (!entry.reconciled) this.reconcile(entry, tx);
    fn(entry);
    tx.afterCommit(() => this.idle(entry));
  }

  private idle(entry: WorkshopDocument) {
    if (this.docs.get(entry.workshopId) === entry && entry.clients.size === 0) this.unloadLater(entry, this.options.idleMs);
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
      this.extensions.call('onAwarenessUpdate', entry, [...added, ...updated, ...removed], origin),
    );
    this.docs.set(workshopId, entry);
    this.extensions.call('onLoadDocument', entry);
    // Reconciling writes; a caller reading inside its own transaction must not have those writes
    // roll back with it, so then it waits until that transaction is over.
    if (this.store.sqlite.inTransaction) this.reconcileLater(entry);
    else this.reconcile(entry);
    return this.docs.get(workshopId) === entry ? entry : undefined;
  }

  private reconcileLater(entry: WorkshopDocument) {
    queueMicrotask(() => {
      if (this.docs.get(entry.workshopId) !== entry || entry.reconciled) return;
      if (this.store.sqlite.inTransaction) setImmediate(() => this.reconcileLater(entry));
      else this.reconcile(entry);
    });
  }

  /**
   * Brings the document and the SQL copy in line (`reconcileWithSql`), inside `tx` or a write of
   * its own. What it changes in the copy is logged: REST readers and live screens knew the copy's
   * values, and the log moving is what tells them (and the cached card lists) otherwise.
   */
  private reconcile(entry: WorkshopDocument, tx?: TransactionHooks) {
    if (!tx) {
      try {
        write(this.events, (_tx, changes) => this.reconcile(entry, changes));
      } catch {
        // Reported, and the document dropped, by `serverChange`.
      }
      return;
    }
    const cards = this.layout.cards(entry.workshopId);
    const zones = this.layout.zones(entry.workshopId);
    let placements = new Map<string, CardPlacement>();
    entry.reconciled = true;
    this.persistence.serverChange(entry, () => (placements = reconcileWithSql(entry, cards, zones)), {
      tx,
      alsoInTransaction: () => {
        const copied = { cards: new Map<string, unknown>(), zones: new Map<string, unknown>() };
        for (const card of cards) {
          const placement = placements.get(card.id);
          if (!placement || samePlacement(placement, card)) continue;
          this.layout.writeCard(entry.workshopId, card.id, placement);
          copied.cards.set(card.id, { position: card.position, x: card.x, y: card.y });
        }
        for (const zone of zones) {
          const state = entry.zone(zone.id);
          if (!state || sameZone(state, zone)) continue;
          this.layout.writeZone(entry.workshopId, zone.id, state);
          copied.zones.set(zone.id, zone);
        }
        recordLayoutChange(tx, entry, null, copied);
      },
    });
  }

  unloadLater(entry: WorkshopDocument, ms: number): void {
    clearTimeout(entry.unloadTimer);
    if (this.closed) return this.unload(entry, { compact: true });
    entry.unloadTimer = setTimeout(() => {
      if (entry.clients.size === 0) this.unload(entry, { compact: true });
    }, ms);
    entry.unloadTimer.unref();
  }

  unload(entry: WorkshopDocument, options: { compact: boolean; close?: { code: number; reason: string } }): void {
    if (this.docs.get(entry.workshopId) !== entry) return;
    clearTimeout(entry.unloadTimer);
    if (options.compact && entry.storedUpdates > 0) this.persistence.compact(entry);
    this.docs.delete(entry.workshopId);
    this.extensions.call('afterUnloadDocument', entry.workshopId);
    const close = options.close ?? CLOSE.retry;
    for (const client of entry.clients) client.close(close.code, close.reason);
    entry.clients.clear();
    entry.destroy();
  }
}

interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}
