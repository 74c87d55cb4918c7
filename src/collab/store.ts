import type Database from 'better-sqlite3';

export interface StoredDocument {
  /** Compacted state, or null before the first compaction. */
  snapshot: Uint8Array | null;
  /** Identifies the snapshot row's content; changes with every compaction (see `nextVersion`). */
  version: string | null;
  updates: Array<{ id: number; update: Uint8Array }>;
}

/**
 * What the documents keep in SQLite: the snapshot and the updates since (`yjs_documents`,
 * `yjs_updates`). The SQL copy of placements and zones is the cards and canvas modules' business
 * (`LayoutCopy`). Statements are prepared once per connection; every update a client sends runs
 * through them.
 */
export class DocumentStore {
  private readonly q;

  constructor(readonly sqlite: Database.Database) {
    this.q = {
      workshopExists: sqlite.prepare<[string], number>('SELECT 1 FROM workshops WHERE id = ?').pluck(),
      snapshot: sqlite.prepare<[string], { state: Buffer; updated_at: string }>('SELECT state, updated_at FROM yjs_documents WHERE workshop_id = ?'),
      snapshotVersion: sqlite.prepare<[string], string>('SELECT updated_at FROM yjs_documents WHERE workshop_id = ?').pluck(),
      updates: sqlite.prepare<[string], { id: number; update: Buffer }>('SELECT id, "update" FROM yjs_updates WHERE workshop_id = ? ORDER BY id'),
      updatesAfter: sqlite.prepare<[number, string], { id: number; update: Buffer }>(
        'SELECT id, "update" FROM yjs_updates WHERE id > ? AND workshop_id = ? ORDER BY id',
      ),
      insertUpdate: sqlite.prepare<[string, Uint8Array, string]>('INSERT INTO yjs_updates (workshop_id, "update", created_at) VALUES (?, ?, ?)'),
      saveSnapshot: sqlite.prepare<[string, Uint8Array, string]>(
        `INSERT INTO yjs_documents (workshop_id, state, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (workshop_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      deleteUpdatesUpTo: sqlite.prepare<[string, number]>('DELETE FROM yjs_updates WHERE workshop_id = ? AND id <= ?'),
      forgetUpdates: sqlite.prepare<[string]>('DELETE FROM yjs_updates WHERE workshop_id = ?'),
      forgetSnapshot: sqlite.prepare<[string]>('DELETE FROM yjs_documents WHERE workshop_id = ?'),
    };
  }

  /** Runs `fn` in one IMMEDIATE transaction (or inside the caller's, when one is open). */
  transaction<T>(fn: () => T): T {
    return this.sqlite.transaction(fn).immediate();
  }

  workshopExists(workshopId: string): boolean {
    return this.q.workshopExists.get(workshopId) !== undefined;
  }

  /** Snapshot and updates, read in one transaction so a compaction elsewhere cannot split them. */
  read(workshopId: string): StoredDocument {
    return this.sqlite.transaction(() => {
      const snapshot = this.q.snapshot.get(workshopId);
      const updates = this.q.updates.all(workshopId);
      return { snapshot: snapshot?.state ?? null, version: snapshot?.updated_at ?? null, updates };
    })();
  }

  /** The updates stored since the snapshot, plus the snapshot when its version is not `knownVersion`. */
  readSince(workshopId: string, knownVersion: string | null): StoredDocument {
    return this.sqlite.transaction(() => {
      const version = this.q.snapshotVersion.get(workshopId) ?? null;
      const snapshot = version !== null && version !== knownVersion ? this.q.snapshot.get(workshopId)!.state : null;
      return { snapshot, version, updates: this.q.updates.all(workshopId) };
    })();
  }

  /** Stores an update; returns its id. */
  append(workshopId: string, update: Uint8Array): number {
    return Number(this.q.insertUpdate.run(workshopId, update, new Date().toISOString()).lastInsertRowid);
  }

  /**
   * What SQLite holds beyond a copy that contains snapshot `knownVersion` and the updates up to
   * `afterId`: only the newer updates while the snapshot is the same (usually none), else all.
   */
  readNewer(workshopId: string, knownVersion: string | null, afterId: number): StoredDocument {
    return this.sqlite.transaction(() => {
      const version = this.q.snapshotVersion.get(workshopId) ?? null;
      if (version !== knownVersion) return this.readSince(workshopId, knownVersion);
      // The id bound first: SQLite walks the rowid range from there.
      return { snapshot: null, version, updates: this.q.updatesAfter.all(afterId, workshopId) };
    })();
  }

  /**
   * Replaces the snapshot and drops the updates it now contains. The version written is strictly
   * greater than the one it replaces, so an instance comparing versions always sees the change.
   */
  compact(workshopId: string, state: Uint8Array, throughUpdateId: number | null, previousVersion: string | null): string {
    const version = nextVersion(previousVersion);
    this.q.saveSnapshot.run(workshopId, state, version);
    if (throughUpdateId !== null) this.q.deleteUpdatesUpTo.run(workshopId, throughUpdateId);
    return version;
  }

  forget(workshopId: string): void {
    this.q.forgetUpdates.run(workshopId);
    this.q.forgetSnapshot.run(workshopId);
  }
}

/** An ISO timestamp after both now and `previous` (by at least a millisecond). */
function nextVersion(previous: string | null): string {
  const now = Date.now();
  const after = previous ? Date.parse(previous) + 1 : 0;
  return new Date(Math.max(now, Number.isNaN(after) ? 0 : after)).toISOString();
}
