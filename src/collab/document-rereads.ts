import * as Y from 'yjs';
import { isUnavailable } from '../db/errors';
import type { WriteDeps } from '../db/write';
import { applyStored, countStored, mergedUpdate, REMOTE, type Captured, type WorkshopDocument } from './document';
import { leftPending } from './guard';
import type { DocumentLocks } from './locks';
import { updateMessage } from './protocol';
import type { DocumentStore, StoredDocument } from './store';

/** The first wait before reading the stored updates again after a failed read; it doubles up to the second. */
const REREAD_FIRST_WAIT_MS = 500;
const REREAD_LONGEST_WAIT_MS = 8_000;

/**
 * Bringing a loaded copy up to what the database holds, without writing: applying the updates
 * other instances relay, before a read answers from it, after a Redis outage, and, waiting longer
 * each time, after an update from another instance could not be applied.
 */
export class DocumentRereads {
  constructor(
    private readonly store: DocumentStore,
    private readonly events: WriteDeps,
    private readonly locks: DocumentLocks,
    /** Whether the entry is still the workshop's loaded document. */
    private readonly isLoaded: (entry: WorkshopDocument) => boolean,
  ) {}

  /**
   * Brings a loaded copy up to what is stored before a read answers from it: a look through the
   * read handle first, and only when something newer is stored, `applyStoredNow`.
   */
  async refresh(entry: WorkshopDocument): Promise<void> {
    try {
      const newer = await this.store.readNewer(
        this.events.database.db,
        entry.workshopId,
        entry.snapshotVersion,
        entry.lastUpdateId,
      );
      if (!newer.snapshot && newer.updates.length === 0) return;
      await this.applyStoredNow(entry, { all: false });
    } catch (err) {
      // The read answers from the copy as it is.
      console.error(`[collab] could not bring the document of workshop ${entry.workshopId} up to date`, err);
    }
  }

  /**
   * Applies to the copy what the database holds beyond it (with `all`, every update since the
   * snapshot), read in one snapshot before the document's lock is taken, and relays what it changed
   * to this instance's clients. Nothing is written, no row is locked: whoever stored those updates
   * wrote their SQL copy (see `remoteChange`). The copy's bookkeeping follows the read only if
   * nothing moved it meanwhile (its own write, a compaction, a relay), each of which accounts for itself.
   */
  private async applyStoredNow(entry: WorkshopDocument, options: { all: boolean }): Promise<void> {
    const { workshopId, snapshotVersion, lastUpdateId, unnumbered } = entry;
    const stored = await this.events.database.snapshot((db) =>
      options.all
        ? this.store.readSince(db, workshopId, snapshotVersion)
        : this.store.readNewer(db, workshopId, snapshotVersion, lastUpdateId),
    );
    await this.locks.run(workshopId, () => {
      if (!this.isLoaded(entry)) return;
      const captured = entry.collect(() => applyStored(entry, stored));
      if (
        entry.snapshotVersion === snapshotVersion &&
        entry.lastUpdateId === lastUpdateId &&
        entry.unnumbered === unnumbered
      ) {
        if (options.all) {
          entry.snapshotVersion = stored.version;
          countStored(entry, stored);
          entry.lastUpdateId = Math.max(entry.lastUpdateId, stored.updates.at(-1)?.id ?? 0);
        } else noteRead(entry, stored);
        // Relays apply only what was committed before they were sent: all of it was read.
        entry.unnumbered = 0;
      }
      relayCaught(entry, captured);
    });
  }

  /**
   * An update another instance stored: applied to this copy and relayed to its clients under the
   * document's lock, in the order the relays came, without a write. The SQL copy needs nothing
   * from here: every instance storing an update first applies everything stored before it (under
   * the workshop's row, `DocumentPersistence.catchUp`) and writes the copy of what that changed,
   * in the same transaction, so after each commit SQL holds what the merge of all stored updates
   * holds, the value every copy converges to. An update that builds on one whose relay is not here yet
   * (relays of two instances crossing) waits inside Yjs for it, and is read from the database
   * shortly if it still waits then; one that could not be applied (the lock held too long) is read
   * back shortly too.
   */
  async remoteChange(entry: WorkshopDocument, update: Uint8Array): Promise<void> {
    try {
      await this.locks.run(entry.workshopId, () => {
        if (!this.isLoaded(entry)) return;
        let captured: Captured;
        try {
          captured = entry.collect(() => Y.applyUpdate(entry.doc, update, REMOTE));
        } catch (err) {
          console.error('[collab] dropped an update from another instance that did not apply', err);
          return;
        }
        if (captured.updates.length > 0) entry.unnumbered += 1;
        relayCaught(entry, captured);
        if (leftPending(entry.doc)) this.rereadLater(entry);
      });
    } catch (err) {
      logFailure(
        `could not apply an update of workshop ${entry.workshopId} from another instance; reading it from the database shortly`,
        err,
      );
      this.rereadLater(entry);
    }
  }

  /** Re-reads what the database holds for a loaded document (after a Redis outage, or when asked). */
  async resync(entry: WorkshopDocument): Promise<void> {
    try {
      await this.reread(entry);
    } catch (err) {
      logFailure(`could not re-read the document of workshop ${entry.workshopId}; trying again shortly`, err);
      this.rereadLater(entry);
    }
  }

  /** Applies everything stored since the snapshot to the copy and relays what it lacked to its clients (`applyStoredNow`). */
  private reread(entry: WorkshopDocument): Promise<void> {
    return this.applyStoredNow(entry, { all: true });
  }

  /**
   * Re-reads the stored updates soon, and again, waiting longer each time, until it worked or the
   * copy was unloaded: an update from another instance that could not be applied, or a re-read
   * after a Redis outage that failed, would otherwise reach this copy and its clients only with
   * the next change made here, which in a quiet workshop may never come.
   */
  rereadLater(entry: WorkshopDocument, waitMs = REREAD_FIRST_WAIT_MS): void {
    if (entry.rereadTimer || !this.isLoaded(entry)) return;
    entry.rereadTimer = setTimeout(() => {
      entry.rereadTimer = undefined;
      if (!this.isLoaded(entry)) return;
      this.reread(entry).catch((err) => {
        logFailure(`could not re-read the document of workshop ${entry.workshopId}; trying again shortly`, err);
        this.rereadLater(entry, Math.min(waitMs * 2, REREAD_LONGEST_WAIT_MS));
      });
    }, waitMs);
    entry.rereadTimer.unref();
  }
}

/** Moves the copy's stored marks past what was just read from the database. */
export function noteRead(entry: WorkshopDocument, stored: StoredDocument) {
  if (stored.snapshot) countStored(entry, stored);
  else {
    entry.storedUpdates += stored.updates.length;
    entry.storedBytes += stored.updates.reduce((sum, { update }) => sum + update.byteLength, 0);
  }
  entry.snapshotVersion = stored.version;
  entry.lastUpdateId = Math.max(entry.lastUpdateId, stored.updates.at(-1)?.id ?? 0);
}

/** Updates already stored elsewhere that this copy had missed: only its own clients need them. */
export function relayCaught(entry: WorkshopDocument, captured: Captured) {
  const update = mergedUpdate(captured.updates);
  if (update) entry.broadcast(updateMessage(update));
}

/** The database away or busy is an expected moment (one line, its innermost reason); anything else is logged whole. */
export function logFailure(message: string, err: unknown): void {
  if (!isUnavailable(err)) return console.error(`[collab] ${message}`, err);
  let reason = err as { message?: unknown; cause?: unknown };
  while (reason.cause instanceof Error) reason = reason.cause;
  console.warn(`[collab] ${message} (${String(reason.message)})`);
}
