import * as Y from 'yjs';
import type { Db } from '../db/database';
import { relayCaught } from './document-rereads';
import { applyStored, countStored, type Captured, type WorkshopDocument } from './document';
import type { DocumentStore } from './store';
import type { OpenWrite } from './types';

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

/** What a compaction writes through: the persistence's own write on a document and its SQL copy. */
export interface CompactionWrites {
  inWrite(
    entry: WorkshopDocument,
    options: { dropOnRollback: boolean },
    fn: (write: OpenWrite) => Promise<void>,
  ): Promise<boolean>;
  copyToSql(tx: Db, entry: WorkshopDocument, captured: Captured): Promise<void>;
}

/**
 * Merging a document's stored updates into its snapshot (its row in the database), once enough
 * of them are stored that a load would read much more than the document itself.
 */
export class DocumentCompaction {
  constructor(
    private readonly store: DocumentStore,
    private readonly options: CompactionOptions,
    private readonly writes: CompactionWrites,
  ) {}

  /** Counts an update once it is committed, and compacts the document when that makes it due. */
  noteStored(entry: WorkshopDocument, update: Uint8Array): void {
    entry.storedUpdates += 1;
    entry.storedBytes += update.byteLength;
    const { compactAfter, compactRatio } = this.options;
    if (
      !entry.compacting &&
      entry.storedUpdates > compactAfter &&
      entry.storedBytes * compactRatio >= entry.snapshotBytes
    )
      void this.compact(entry);
  }

  /**
   * Merges the stored updates into the snapshot and deletes exactly those it merged, in one write.
   * Whatever the database holds that this copy lacks (stored by another instance, not relayed
   * yet) is applied first, so the snapshot never loses it.
   */
  compact(entry: WorkshopDocument): Promise<void> {
    entry.compacting ??= this.compactNow(entry).finally(() => (entry.compacting = null));
    return entry.compacting;
  }

  private async compactNow(entry: WorkshopDocument): Promise<void> {
    try {
      await this.writes.inWrite(entry, { dropOnRollback: false }, async ({ tx, changes }) => {
        const stored = await this.store.readSince(tx, entry.workshopId, entry.snapshotVersion);
        const captured = entry.collect(() => applyStored(entry, stored));
        await this.writes.copyToSql(tx, entry, captured);
        const state = Y.encodeStateAsUpdate(entry.doc);
        const through = stored.updates.at(-1)?.id ?? null;
        const version = await this.store.compact(tx, entry.workshopId, state, through, stored.version);
        changes.afterCommit(() => {
          entry.snapshotVersion = version;
          countStored(entry, { snapshot: state, version, updates: [] });
          entry.lastUpdateId = Math.max(entry.lastUpdateId, through ?? 0);
          entry.unnumbered = 0;
          relayCaught(entry, captured);
        });
      });
    } catch (err) {
      console.error(`[collab] could not compact the document of workshop ${entry.workshopId}`, err);
    }
  }
}
