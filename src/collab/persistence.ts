import * as Y from 'yjs';
import type { Db } from '../db/database';
import { findAccess } from '../modules/access/load';
import type { AuthorVisibility } from '../domain/permissions';
import { mostHidden } from '../modules/access/visibility';
import { writeWorkshop, type WriteDeps } from '../db/write';
import { recordLayoutChange } from './change-log';
import { logFailure, noteRead, relayCaught, DocumentRereads } from './document-rereads';
import { DocumentCompaction, type CompactionOptions } from './compaction';
import {
  applyStored,
  mergeCaptured,
  mergedUpdate,
  SERVER,
  type Captured,
  type DocumentClient,
  type WorkshopDocument,
} from './document';
import { leftPending, RefusedUpdate, screenClientUpdate } from './guard';
import type { Extensions } from './hooks';
import type { DocumentLocks } from './locks';
import { CLOSE, updateMessage } from './protocol';
import { readLayoutFacts, repairClientChange, type LayoutFacts } from './repair';
import type { DocumentStore } from './store';
import type { LayoutCopy, OpenWrite } from './types';

const NOTHING: Captured = { cards: new Map(), zones: new Map(), updates: [] };

/** How a client's update ended: `gone` when its document was unloaded before the write began. */
type ClientOutcome = 'stored' | 'gone' | 'notMember' | 'refused' | 'leftAside';

/**
 * Every change to a loaded document: stored in the database (`yjs_updates`) with the SQL copy of
 * what it changed, in one transaction that holds the document's lock (`locks.ts`), before any
 * client or other instance hears of it. Server changes made inside a REST write are stored in its
 * transaction and relayed only once it commits; if it rolls back, the document is dropped.
 */
export class DocumentPersistence {
  constructor(
    private readonly store: DocumentStore,
    private readonly layout: LayoutCopy,
    private readonly events: WriteDeps,
    private readonly extensions: Extensions,
    options: CompactionOptions,
    private readonly locks: DocumentLocks,
    /** Whether the entry is still the workshop's loaded document. */
    private readonly isLoaded: (entry: WorkshopDocument) => boolean,
    /**
     * Drops a loaded document whose memory may hold what the database does not; its clients
     * reconnect, sync from what is stored, and send again what was lost. The caller holds its lock.
     */
    private readonly drop: (entry: WorkshopDocument) => void,
  ) {
    this.rereads = new DocumentRereads(store, events, locks, isLoaded);
    this.compaction = new DocumentCompaction(store, options, this);
  }

  private readonly rereads: DocumentRereads;
  private readonly compaction: DocumentCompaction;

  /** Brings a loaded copy up to what is stored before a read answers from it (`DocumentRereads.refresh`). */
  refresh(entry: WorkshopDocument): Promise<void> {
    return this.rereads.refresh(entry);
  }

  /** Re-reads what the database holds for a loaded document (after a Redis outage, or when asked). */
  resync(entry: WorkshopDocument): Promise<void> {
    return this.rereads.resync(entry);
  }

  /**
   * A change the server makes (REST placements, zones, reconciling) inside the caller's open
   * write: stored, copied to SQL, and relayed once that write commits; the document is dropped if
   * it rolls back, and a failure is the caller's failure. The write holds the document's lock
   * until it ends.
   */
  async serverChange(
    write: OpenWrite,
    entry: WorkshopDocument,
    fn: () => void,
    options: { alsoInTransaction?: () => Promise<void> } = {},
  ): Promise<void> {
    await this.locks.holdFor(write, entry.workshopId);
    write.changes.onRollback(() => this.drop(entry));
    // With everything stored applied first, values the change keeps (a position-only patch keeps
    // x and y) are the stored ones, never a stale copy's.
    const caught = await this.catchUp(write.tx, entry);
    const captured = entry.collect(() => entry.doc.transact(fn, SERVER));
    await this.copyToSql(write.tx, entry, captured);
    await options.alsoInTransaction?.();
    const update = mergedUpdate(captured.updates);
    if (update) entry.lastUpdateId = await this.store.append(write.tx, entry.workshopId, update);
    write.changes.afterCommit(() => {
      relayCaught(entry, caught);
      if (update) this.stored(entry, update);
    });
  }

  /**
   * Brings the copy up to what is stored inside the caller's write, for a REST write that decides
   * from the document's values (which zone holds a cluster's link): the workshop's row it holds
   * keeps them so until it ends. What was caught up with is stored already, so the copy's clients
   * are sent it whether the write commits or not.
   */
  async catchUpInWrite(write: OpenWrite, entry: WorkshopDocument): Promise<void> {
    const caught = await this.catchUp(write.tx, entry);
    if (caught.updates.length === 0) return;
    const relay = () => relayCaught(entry, caught);
    write.changes.afterCommit(relay);
    write.changes.onRollback(relay);
  }

  /**
   * Applies what the database holds beyond this copy (stored by another instance, its relay not
   * here yet) and copies it to SQL, in the caller's write; the caller relays the result.
   */
  private async catchUp(tx: Db, entry: WorkshopDocument): Promise<Captured> {
    const stored = await this.store.readNewer(tx, entry.workshopId, entry.snapshotVersion, entry.lastUpdateId);
    // Relays apply only what was committed before they were sent: all of it is read by now.
    entry.unnumbered = 0;
    if (!stored.snapshot && stored.updates.length === 0) return NOTHING;
    const captured = entry.collect(() => applyStored(entry, stored));
    noteRead(entry, stored);
    await this.copyToSql(tx, entry, captured);
    return captured;
  }

  /**
   * An update from a client of this instance: membership is checked, the update applied, what it
   * may not do repaired (`repair.ts`), and all of it stored with the SQL copy, and the placements
   * and zones it changed logged (`change-log.ts`), in one write; only then do the other clients,
   * instances and Socket.IO screens get it. The sender gets the repairs. With `answerPending` (the
   * client has not answered the server's step 1 yet), an update that builds on changes the
   * document lacks is left aside: that answer brings it whole.
   */
  async clientChange(
    entry: WorkshopDocument,
    client: DocumentClient,
    userId: string,
    update: Uint8Array,
    options: { answerPending?: boolean } = {},
  ): Promise<void> {
    let outcome = 'stored' as ClientOutcome;
    let caught = NOTHING;
    try {
      const ran = await this.inWrite(entry, { dropOnRollback: true }, async (write) => {
        caught = await this.catchUp(write.tx, entry);
        outcome = await this.storeClientChange(write, entry, client, userId, update, options.answerPending ?? false);
      });
      // Set last: a write that ran again after a rollback finds the document dropped.
      if (!ran) outcome = 'gone';
    } catch (err) {
      if (err instanceof RefusedUpdate) return;
      logFailure(`could not store a change to workshop ${entry.workshopId}; asking its client for it again`, err);
      // A copy that took the change was dropped with the rollback, and its clients reconnect. One
      // that failed before (the workshop locked too long) goes on without it: the client, which
      // counts it as sent, is asked for what the copy lacks, or its next change would build on a
      // gap and be refused.
      if (this.isLoaded(entry)) client.askAgain(entry.doc);
      return;
    }
    relayCaught(entry, caught);
    if (outcome === 'notMember') client.close(CLOSE.notFound.code, CLOSE.notFound.reason);
    else if (outcome === 'refused') client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
  }

  /**
   * The steps of `clientChange` inside its write, once caught up: membership, the update's check,
   * applying it, repairing it, and storing it all with the SQL copy and the change log.
   */
  private async storeClientChange(
    { tx, changes }: OpenWrite,
    entry: WorkshopDocument,
    client: DocumentClient,
    userId: string,
    update: Uint8Array,
    answerPending: boolean,
  ): Promise<ClientOutcome> {
    const access = await findAccess(tx, entry.workshopId, userId);
    if (!access) return 'notMember';
    const unfit = screenClientUpdate(entry.doc, update, answerPending);
    if (unfit) return unfit;
    const applied = entry.collect(() => Y.applyUpdate(entry.doc, update, client));
    if (leftPending(entry.doc)) {
      // Nothing of it is stored (the write rolls back) and the copy is dropped, to reload.
      client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
      throw new RefusedUpdate('update left pending structs');
    }
    if (applied.updates.length === 0) return 'stored';
    const facts = await readLayoutFacts(tx, this.layout, entry, applied);
    const repairs = entry.collect(() =>
      entry.doc.transact(() => repairClientChange(entry, facts, access, applied), SERVER),
    );
    const all = mergeCaptured(applied, repairs);
    await this.copyToSql(tx, entry, all);
    recordLayoutChange(changes, entry, userId, all, ownAnonymousCards(facts, userId));
    const stored = mergedUpdate(all.updates)!;
    const repair = mergedUpdate(repairs.updates);
    entry.lastUpdateId = await this.store.append(tx, entry.workshopId, stored);
    changes.afterCommit(() => {
      this.stored(entry, stored, client);
      if (repair) client.send(updateMessage(repair));
    });
    return 'stored';
  }

  /** Applies an update another instance stored, and relays it to this copy's clients (`DocumentRereads.remoteChange`). */
  remoteChange(entry: WorkshopDocument, update: Uint8Array): Promise<void> {
    return this.rereads.remoteChange(entry, update);
  }

  /** After an update is committed: relay it, call `onStoreDocument` (other instances), compact when due. */
  private stored(entry: WorkshopDocument, update: Uint8Array, from?: DocumentClient) {
    entry.broadcast(updateMessage(update), from);
    this.extensions.call('onStoreDocument', entry, update);
    this.compaction.noteStored(entry, update);
  }

  /** Writes the SQL copy of the placements and zones a change touched, as the document now holds them. */
  async copyToSql(tx: Db, entry: WorkshopDocument, captured: Captured) {
    for (const cardId of captured.cards.keys()) {
      const placement = entry.placement(cardId);
      if (placement) await this.layout.writeCard(tx, entry.workshopId, cardId, placement);
    }
    for (const zoneId of captured.zones.keys()) {
      const zone = entry.zone(zoneId);
      if (zone) await this.layout.writeZone(tx, entry.workshopId, zoneId, zone);
    }
  }

  /** Merges the stored updates into the snapshot (`DocumentCompaction.compact`). */
  compact(entry: WorkshopDocument): Promise<void> {
    return this.compaction.compact(entry);
  }

  /**
   * Runs `fn` in a write of its own on the entry's workshop, holding the document's lock; resolves
   * false (running nothing) when the entry was unloaded meanwhile. With `dropOnRollback`, a write
   * that fails drops the document, whose memory may then hold what was not stored. Without, `fn`
   * applies only what is stored already (a compaction catching up with what the database holds):
   * the copy keeps it when the write fails, so its clients are sent it all the same, or they would
   * lack it until they reconnect.
   */
  async inWrite(
    entry: WorkshopDocument,
    options: { dropOnRollback: boolean },
    fn: (write: OpenWrite) => Promise<void>,
  ): Promise<boolean> {
    return writeWorkshop(this.events, entry.workshopId, async (tx, changes) => {
      const write = { tx, changes };
      await this.locks.holdFor(write, entry.workshopId);
      if (!this.isLoaded(entry)) return false;
      if (options.dropOnRollback) {
        changes.onRollback(() => this.drop(entry));
        await fn(write);
        return true;
      }
      const taken: Uint8Array[] = [];
      const take = (update: Uint8Array) => taken.push(update);
      changes.onRollback(() => {
        // The copy keeps what it caught up with, beyond its stored marks: a sync client answered
        // from those marks must be sent it when it joins.
        if (taken.length > 0) entry.unnumbered += 1;
        relayCaught(entry, { ...NOTHING, updates: taken });
      });
      entry.doc.on('update', take);
      try {
        await fn(write);
      } finally {
        entry.doc.off('update', take);
      }
      return true;
    });
  }
}

/** How hidden the most hidden of the cards a user moved that they wrote anonymously is (`shown`: none). */
function ownAnonymousCards(facts: LayoutFacts, userId: string): AuthorVisibility {
  return mostHidden(
    [...facts.cards.values()].filter((card) => card.userId === userId).map((card) => card.authorVisibility),
  );
}
