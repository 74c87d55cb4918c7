import type { WriteDeps } from '../db/write';
import { recordLayoutChange } from './change-log';
import type { CompactionOptions } from './compaction';
import { applyStored, countStored, WorkshopDocument } from './document';
import type { Extensions } from './hooks';
import { samePlacement, sameZone } from './layout';
import { DocumentLocks } from './locks';
import { DocumentPersistence } from './persistence';
import { CLOSE } from './protocol';
import { reconcileWithSql } from './repair';
import type { DocumentStore, StoredDocument } from './store';
import type { LayoutCopy, OpenWrite } from './types';
import type { CardPlacement } from '../domain/canvas';

export interface CollabOptions extends CompactionOptions {
  /** How long a document stays loaded after its last client left. */
  graceMs: number;
  /** How long a document used only through REST stays loaded after its last use. */
  idleMs: number;
}

export const DEFAULT_COLLAB_OPTIONS: CollabOptions = {
  graceMs: 5_000,
  idleMs: 60_000,
  compactAfter: 100,
  compactRatio: 8,
};

type Close = { code: number; reason: string };

/**
 * The loaded documents of this instance and their life: loading (snapshot + updates since, then
 * reconciled with SQL), use by services, unloading. Changes go through `persistence`, under the
 * documents' locks (`locks.ts`). Extensions hear `onLoadDocument`, `afterUnloadDocument` and
 * `onAwarenessUpdate` from here.
 */
export class DocumentLifecycle {
  private readonly docs = new Map<string, WorkshopDocument>();
  private readonly loading = new Map<string, Promise<WorkshopDocument | undefined>>();
  readonly locks: DocumentLocks;
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
    this.locks = new DocumentLocks((tx, workshopId) => store.lockWorkshop(tx, workshopId));
    this.persistence = new DocumentPersistence(
      store,
      layout,
      events,
      extensions,
      options,
      this.locks,
      (entry) => this.docs.get(entry.workshopId) === entry,
      (entry) => this.drop(entry, CLOSE.retry),
    );
  }

  loaded(workshopId: string): WorkshopDocument | undefined {
    return this.docs.get(workshopId);
  }

  all(): WorkshopDocument[] {
    return [...this.docs.values()];
  }

  /**
   * The workshop's document, loaded and reconciled with SQL when needed, outside any write;
   * undefined when the workshop does not exist.
   */
  async open(workshopId: string): Promise<WorkshopDocument | undefined> {
    const entry = this.docs.get(workshopId) ?? (await this.load(workshopId));
    if (entry && !entry.reconciled) await this.reconcile(entry);
    return entry && this.docs.get(workshopId) === entry ? entry : undefined;
  }

  /** What the database holds of a workshop's document (snapshot and updates since), without loading it. */
  stored(workshopId: string): Promise<StoredDocument> {
    return this.events.database.snapshot((db) => this.store.read(db, workshopId));
  }

  /**
   * Runs `fn` on the workshop's document for a read, loading it when needed; it stays loaded a
   * while if idle. The copy is brought up to what is stored first.
   */
  async read<T>(workshopId: string, fn: (entry: WorkshopDocument) => T): Promise<T | undefined> {
    const entry = await this.open(workshopId);
    if (!entry) return undefined;
    try {
      return await this.readEntry(entry, fn);
    } finally {
      this.idle(entry);
    }
  }

  /**
   * `read`, when this instance has the document loaded; undefined otherwise, loading nothing. Such
   * reads do not keep an idle document loaded longer: they would be answered without it.
   */
  async readIfLoaded<T>(workshopId: string, fn: (entry: WorkshopDocument) => T): Promise<T | undefined> {
    const entry = this.docs.get(workshopId);
    return entry ? this.readEntry(entry, fn) : undefined;
  }

  private async readEntry<T>(entry: WorkshopDocument, fn: (entry: WorkshopDocument) => T): Promise<T | undefined> {
    // A read answers with what is stored, even what another instance's relay has not brought yet.
    await this.persistence.refresh(entry);
    return this.locks.run(entry.workshopId, () => (this.docs.get(entry.workshopId) === entry ? fn(entry) : undefined));
  }

  /**
   * The workshop's document inside the caller's write, which holds its lock from here until it
   * ends: loaded through the write's handle when needed, and brought in line with SQL in that
   * write (if it rolls back, the document is dropped: `DocumentPersistence.serverChange`).
   */
  async openInWrite(write: OpenWrite, workshopId: string): Promise<WorkshopDocument | undefined> {
    await this.locks.holdFor(write, workshopId);
    let entry = this.docs.get(workshopId);
    if (!entry) {
      if (!(await this.store.workshopExists(write.tx, workshopId))) return undefined;
      entry = this.install(workshopId, await this.store.read(write.tx, workshopId), write);
    }
    if (!entry.reconciled) await this.reconcile(entry, write);
    const used = entry;
    write.changes.afterCommit(() => this.idle(used));
    return entry;
  }

  private idle(entry: WorkshopDocument) {
    if (this.docs.get(entry.workshopId) === entry && entry.clients.size === 0)
      this.unloadLater(entry, this.options.idleMs);
  }

  /**
   * Loads a document outside any write, once however many ask at the same time. What is stored is
   * read before the document's lock is taken: a write holding the workshop's row (or SQLite's
   * writer) may be waiting for that lock, and the read must not wait on the write in turn. What is
   * stored after the read is applied when the copy is brought in line with SQL (`open` reconciles
   * it, catching up under the row), and a copy a write installed meanwhile is kept.
   */
  private load(workshopId: string): Promise<WorkshopDocument | undefined> {
    let loading = this.loading.get(workshopId);
    if (!loading) {
      loading = this.events.database
        .snapshot(async (db) =>
          (await this.store.workshopExists(db, workshopId)) ? this.store.read(db, workshopId) : null,
        )
        .then((stored) =>
          this.locks.run(
            workshopId,
            () => this.docs.get(workshopId) ?? (stored ? this.install(workshopId, stored) : undefined),
          ),
        )
        .finally(() => this.loading.delete(workshopId));
      this.loading.set(workshopId, loading);
    }
    return loading;
  }

  /**
   * Makes a loaded copy from what is stored; the caller holds the document's lock. Loaded inside
   * a write, extensions hear of it once that write has committed: what they start (a Redis
   * subscription, a re-read) must not run inside it. If the write rolls back instead, the copy goes
   * with it: never announced, it would never hear of other instances' changes.
   */
  private install(workshopId: string, stored: StoredDocument, write?: OpenWrite): WorkshopDocument {
    const entry = new WorkshopDocument(workshopId);
    applyStored(entry, stored);
    countStored(entry, stored);
    entry.snapshotVersion = stored.version;
    entry.lastUpdateId = stored.updates.at(-1)?.id ?? 0;
    entry.awareness.on('update', ({ added, updated, removed }: AwarenessChange, origin: unknown) =>
      this.extensions.call('onAwarenessUpdate', entry, [...added, ...updated, ...removed], origin),
    );
    this.docs.set(workshopId, entry);
    const announce = () => {
      if (this.docs.get(workshopId) === entry) this.extensions.call('onLoadDocument', entry);
    };
    if (write) {
      write.changes.afterCommit(announce);
      write.changes.onRollback(() => this.drop(entry, CLOSE.retry));
    } else announce();
    return entry;
  }

  /**
   * Brings the document and the SQL copy in line (`reconcileWithSql`), inside `write` or a write of
   * its own. What it changes in the copy is logged: REST readers and live screens knew the copy's
   * values, and the log moving is what tells them (and the cached card lists) otherwise.
   */
  private async reconcile(entry: WorkshopDocument, write?: OpenWrite): Promise<void> {
    if (!write) {
      try {
        await this.persistence.inWrite(entry, { dropOnRollback: true }, (own) => this.reconcile(entry, own));
      } catch (err) {
        // A write that failed once it had begun on the copy dropped it (`inWrite`): the next use
        // loads it again. One that failed before (the workshop locked too long) left it as it was.
        console.error(`[collab] could not bring the document of workshop ${entry.workshopId} in line with SQL`, err);
      }
      return;
    }
    await this.locks.holdFor(write, entry.workshopId);
    if (entry.reconciled || this.docs.get(entry.workshopId) !== entry) return;
    const cards = await this.layout.cards(write.tx, entry.workshopId);
    const zones = await this.layout.zones(write.tx, entry.workshopId);
    let placements = new Map<string, CardPlacement>();
    entry.reconciled = true;
    await this.persistence.serverChange(write, entry, () => (placements = reconcileWithSql(entry, cards, zones)), {
      alsoInTransaction: async () => {
        const copied = { cards: new Map<string, unknown>(), zones: new Map<string, unknown>() };
        for (const card of cards) {
          const placement = placements.get(card.id);
          if (!placement || samePlacement(placement, card)) continue;
          await this.layout.writeCard(write.tx, entry.workshopId, card.id, placement);
          copied.cards.set(card.id, { position: card.position, x: card.x, y: card.y });
        }
        for (const zone of zones) {
          const state = entry.zone(zone.id);
          if (!state || sameZone(state, zone)) continue;
          await this.layout.writeZone(write.tx, entry.workshopId, zone.id, state);
          copied.zones.set(zone.id, zone);
        }
        recordLayoutChange(write.changes, entry, null, copied);
      },
    });
  }

  unloadLater(entry: WorkshopDocument, ms: number): void {
    clearTimeout(entry.unloadTimer);
    if (this.closed) {
      void this.unload(entry, { compact: true, onlyIdle: true });
      return;
    }
    entry.unloadTimer = setTimeout(() => void this.unload(entry, { compact: true, onlyIdle: true }), ms);
    entry.unloadTimer.unref();
  }

  /**
   * Unloads a document, compacting it first when asked; with `onlyIdle`, only if no client joined
   * meanwhile. Its remaining clients are closed with `close` (reconnect, by default).
   */
  async unload(
    entry: WorkshopDocument,
    options: { compact: boolean; onlyIdle?: boolean; close?: Close },
  ): Promise<void> {
    if (this.docs.get(entry.workshopId) !== entry || (options.onlyIdle && entry.clients.size > 0)) return;
    clearTimeout(entry.unloadTimer);
    if (options.compact && entry.storedUpdates > 0) await this.persistence.compact(entry);
    await this.locks.runWhenFree(entry.workshopId, () => {
      if (options.onlyIdle && entry.clients.size > 0) return;
      this.drop(entry, options.close ?? CLOSE.retry);
    });
  }

  /** Takes the document out of memory at once; the caller holds its lock (or nothing else can). */
  drop(entry: WorkshopDocument, close: Close): void {
    if (this.docs.get(entry.workshopId) !== entry) return;
    clearTimeout(entry.unloadTimer);
    this.docs.delete(entry.workshopId);
    this.extensions.call('afterUnloadDocument', entry.workshopId);
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
