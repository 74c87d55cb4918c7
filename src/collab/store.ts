import type Database from 'better-sqlite3';
import type { CardPlacement, ZoneState } from './types';

export interface StoredDocument {
  /** Compacted state, or null before the first compaction. */
  snapshot: Uint8Array | null;
  /** Identifies the snapshot row's content; changes with every compaction (see `nextVersion`). */
  version: string | null;
  updates: Array<{ id: number; update: Uint8Array }>;
}

export interface CardCopy {
  id: string;
  parentId: string | null;
  userId: string;
  position: number;
  x: number | null;
  y: number | null;
}

export interface ZoneCopy extends ZoneState {
  id: string;
}

/**
 * Everything the documents keep in SQLite: the snapshot and the updates since (`yjs_documents`,
 * `yjs_updates`), and the SQL copy of placements (`cards`) and zones (`zones`). Statements are
 * prepared once per connection; every update a client sends runs through them.
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
      tokenExpiry: sqlite.prepare<[string], string>('SELECT expires_at FROM auth_tokens WHERE token_hash = ?').pluck(),
      insertUpdate: sqlite.prepare<[string, Uint8Array, string]>('INSERT INTO yjs_updates (workshop_id, "update", created_at) VALUES (?, ?, ?)'),
      saveSnapshot: sqlite.prepare<[string, Uint8Array, string]>(
        `INSERT INTO yjs_documents (workshop_id, state, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (workshop_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      deleteUpdatesUpTo: sqlite.prepare<[string, number]>('DELETE FROM yjs_updates WHERE workshop_id = ? AND id <= ?'),
      forgetUpdates: sqlite.prepare<[string]>('DELETE FROM yjs_updates WHERE workshop_id = ?'),
      forgetSnapshot: sqlite.prepare<[string]>('DELETE FROM yjs_documents WHERE workshop_id = ?'),
      // Every card of a workshop, on each document load: arrays skip building an object per column.
      cards: sqlite
        .prepare<[string], [string, string | null, string, number, number | null, number | null]>(
          'SELECT id, parent_id, user_id, position, x, y FROM cards WHERE workshop_id = ?',
        )
        .raw(),
      card: sqlite.prepare<[string, string], CardCopy>(
        'SELECT id, parent_id AS parentId, user_id AS userId, position, x, y FROM cards WHERE id = ? AND workshop_id = ?',
      ),
      stack: sqlite.prepare<[string, string | null], CardCopy>(
        `SELECT id, parent_id AS parentId, user_id AS userId, position, x, y FROM cards
          WHERE workshop_id = ? AND parent_id IS ? ORDER BY position, id`,
      ),
      writeCard: sqlite.prepare<[number, number | null, number | null, string, string, number, number | null, number | null]>(
        `UPDATE cards SET position = ?, x = ?, y = ? WHERE id = ? AND workshop_id = ?
           AND (position IS NOT ? OR x IS NOT ? OR y IS NOT ?)`,
      ),
      zones: sqlite.prepare<[string], ZoneCopy>(
        'SELECT id, name, x, y, rows, cols, cluster_id FROM zones WHERE workshop_id = ?',
      ),
      zone: sqlite.prepare<[string, string], ZoneCopy>(
        'SELECT id, name, x, y, rows, cols, cluster_id FROM zones WHERE id = ? AND workshop_id = ?',
      ),
      isCluster: sqlite.prepare<[string, string], number>(
        "SELECT 1 FROM cards WHERE id = ? AND workshop_id = ? AND type = 'cluster'",
      ).pluck(),
      writeZone: sqlite.prepare<[string, number, number, number, number, string | null, string, string, string]>(
        `UPDATE zones SET name = ?, x = ?, y = ?, rows = ?, cols = ?, cluster_id = ?, updated_at = ?
           WHERE id = ? AND workshop_id = ?`,
      ),
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

  /** Whether a bearer token (by hash) still works: not logged out, not expired. */
  sessionAlive(tokenHash: string): boolean {
    const expiresAt = this.q.tokenExpiry.get(tokenHash);
    return expiresAt !== undefined && Date.parse(expiresAt) > Date.now();
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

  cards(workshopId: string): CardCopy[] {
    return this.q.cards.all(workshopId).map(([id, parentId, userId, position, x, y]) => ({ id, parentId, userId, position, x, y }));
  }

  card(workshopId: string, cardId: string): CardCopy | undefined {
    return this.q.card.get(cardId, workshopId);
  }

  /** The cards sharing a parent (the ideas of a cluster, or all clusters), in SQL order. */
  stack(workshopId: string, parentId: string | null): CardCopy[] {
    return this.q.stack.all(workshopId, parentId);
  }

  /** Writes a card's placement to the SQL copy; rows already equal are left untouched. */
  writeCard(workshopId: string, cardId: string, p: CardPlacement): void {
    this.q.writeCard.run(p.position, p.x, p.y, cardId, workshopId, p.position, p.x, p.y);
  }

  zones(workshopId: string): ZoneCopy[] {
    return this.q.zones.all(workshopId);
  }

  zone(workshopId: string, zoneId: string): ZoneCopy | undefined {
    return this.q.zone.get(zoneId, workshopId);
  }

  isCluster(workshopId: string, cardId: string): boolean {
    return this.q.isCluster.get(cardId, workshopId) !== undefined;
  }

  writeZone(workshopId: string, zoneId: string, z: ZoneState): void {
    this.q.writeZone.run(z.name, z.x, z.y, z.rows, z.cols, z.cluster_id, new Date().toISOString(), zoneId, workshopId);
  }
}

/** An ISO timestamp after both now and `previous` (by at least a millisecond). */
function nextVersion(previous: string | null): string {
  const now = Date.now();
  const after = previous ? Date.parse(previous) + 1 : 0;
  return new Date(Math.max(now, Number.isNaN(after) ? 0 : after)).toISOString();
}
