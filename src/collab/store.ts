import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db } from '../db/database';
import { named, preparedPerDb } from '../db/prepared';

export interface StoredDocument {
  /** Compacted state, or null before the first compaction. */
  snapshot: Uint8Array | null;
  /** Identifies the snapshot row's content; changes with every compaction (see `nextVersion`). */
  version: string | null;
  updates: Array<{ id: number; update: Uint8Array }>;
}

/** Every update a client sends runs through these: prepared once per handle. */
const statements = preparedPerDb((db: Db) => {
  const { workshops, yjsDocuments, yjsUpdates } = tablesOf(db);
  const p = sql.placeholder;
  return {
    workshopExists: named(
      db
        .select({ id: workshops.id })
        .from(workshops)
        .where(eq(workshops.id, p('workshopId'))),
      'collab_workshop_exists',
    ),
    snapshot: named(
      db
        .select({ state: yjsDocuments.state, version: yjsDocuments.updatedAt })
        .from(yjsDocuments)
        .where(eq(yjsDocuments.workshopId, p('workshopId'))),
      'collab_snapshot',
    ),
    snapshotVersion: named(
      db
        .select({ version: yjsDocuments.updatedAt })
        .from(yjsDocuments)
        .where(eq(yjsDocuments.workshopId, p('workshopId'))),
      'collab_snapshot_version',
    ),
    updates: named(
      db
        .select({ id: yjsUpdates.id, update: yjsUpdates.update })
        .from(yjsUpdates)
        .where(eq(yjsUpdates.workshopId, p('workshopId')))
        .orderBy(asc(yjsUpdates.id)),
      'collab_updates',
    ),
    updatesAfter: named(
      db
        .select({ id: yjsUpdates.id, update: yjsUpdates.update })
        .from(yjsUpdates)
        .where(and(gt(yjsUpdates.id, p('afterId')), eq(yjsUpdates.workshopId, p('workshopId'))))
        .orderBy(asc(yjsUpdates.id)),
      'collab_updates_after',
    ),
    insertUpdate: named(
      db
        .insert(yjsUpdates)
        .values({ workshopId: p('workshopId'), update: p('update'), createdAt: p('now') })
        .returning({ id: yjsUpdates.id }),
      'collab_insert_update',
    ),
    saveSnapshot: named(
      db
        .insert(yjsDocuments)
        .values({ workshopId: p('workshopId'), state: p('state'), updatedAt: p('version') })
        .onConflictDoUpdate({
          target: yjsDocuments.workshopId,
          set: { state: sql`excluded.state`, updatedAt: sql`excluded.updated_at` },
        }),
      'collab_save_snapshot',
    ),
    deleteUpdatesUpTo: named(
      db.delete(yjsUpdates).where(and(eq(yjsUpdates.workshopId, p('workshopId')), lte(yjsUpdates.id, p('throughId')))),
      'collab_delete_updates',
    ),
  };
});

/**
 * What the documents keep in the database: the snapshot and the updates since (`yjs_documents`,
 * `yjs_updates`). The SQL copy of placements and zones is the cards and canvas modules' business
 * (`LayoutCopy`). Every method reads or writes through the handle it is given: a transaction's,
 * or a snapshot's where several reads must agree.
 */
export class DocumentStore {
  constructor(private readonly database: Pick<Database, 'lockWorkshop'>) {}

  async workshopExists(db: Db, workshopId: string): Promise<boolean> {
    return (await statements(db).workshopExists.execute({ workshopId })).length > 0;
  }

  /** Snapshot and updates; `db` must be one consistent view (a snapshot or a transaction) so a compaction cannot split them. */
  async read(db: Db, workshopId: string): Promise<StoredDocument> {
    const q = statements(db);
    const [snapshot] = await q.snapshot.execute({ workshopId });
    const updates = await q.updates.execute({ workshopId });
    return { snapshot: snapshot?.state ?? null, version: snapshot?.version ?? null, updates };
  }

  /** The updates stored since the snapshot, plus the snapshot when its version is not `knownVersion`. */
  async readSince(db: Db, workshopId: string, knownVersion: string | null): Promise<StoredDocument> {
    const q = statements(db);
    const version = (await q.snapshotVersion.execute({ workshopId }))[0]?.version ?? null;
    const snapshot =
      version !== null && version !== knownVersion
        ? ((await q.snapshot.execute({ workshopId }))[0]?.state ?? null)
        : null;
    return { snapshot, version, updates: await q.updates.execute({ workshopId }) };
  }

  /**
   * Locks the workshop's row for the rest of `tx` (free when the write already holds it, as every
   * write to a workshop does). Every change to a document holds it (`DocumentLocks.holdFor`): so
   * ids of one document are handed out, and committed, one write after another, and a reader
   * catching up by "ids above the last it read" never misses one that commits later. Compaction,
   * under the same lock, deletes exactly the ids it read.
   */
  lockWorkshop(tx: Db, workshopId: string): Promise<void> {
    return this.database.lockWorkshop(tx, workshopId);
  }

  /** Stores an update; returns its id. The caller holds the workshop's row (`lockWorkshop`). */
  async append(tx: Db, workshopId: string, update: Uint8Array): Promise<number> {
    const [row] = await statements(tx).insertUpdate.execute({
      workshopId,
      update: Buffer.from(update.buffer, update.byteOffset, update.byteLength),
      now: new Date().toISOString(),
    });
    return row!.id;
  }

  /**
   * What the database holds beyond a copy that contains snapshot `knownVersion` and the updates up
   * to `afterId`: only the newer updates while the snapshot is the same (usually none), else all.
   */
  async readNewer(db: Db, workshopId: string, knownVersion: string | null, afterId: number): Promise<StoredDocument> {
    const q = statements(db);
    const version = (await q.snapshotVersion.execute({ workshopId }))[0]?.version ?? null;
    if (version !== knownVersion) return this.readSince(db, workshopId, knownVersion);
    return { snapshot: null, version, updates: await q.updatesAfter.execute({ afterId, workshopId }) };
  }

  /**
   * Replaces the snapshot and drops the updates it now contains. The version written is strictly
   * greater than the one it replaces, so an instance comparing versions always sees the change.
   */
  async compact(
    tx: Db,
    workshopId: string,
    state: Uint8Array,
    throughUpdateId: number | null,
    previousVersion: string | null,
  ): Promise<string> {
    const version = nextVersion(previousVersion);
    const q = statements(tx);
    await q.saveSnapshot.execute({
      workshopId,
      state: Buffer.from(state.buffer, state.byteOffset, state.byteLength),
      version,
    });
    if (throughUpdateId !== null) await q.deleteUpdatesUpTo.execute({ workshopId, throughId: throughUpdateId });
    return version;
  }
}

/** An ISO timestamp after both now and `previous` (by at least a millisecond). */
function nextVersion(previous: string | null): string {
  const now = Date.now();
  const after = previous ? Date.parse(previous) + 1 : 0;
  return new Date(Math.max(now, Number.isNaN(after) ? 0 : after)).toISOString();
}
