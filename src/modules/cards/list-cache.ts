import type Database from 'better-sqlite3';
import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';

const MAX_ENTRIES = 64;

/**
 * Memoizes card lists until the database changes. The version is SQLite's own change counters:
 * `total_changes()` moves with every row this connection writes (committed or not) and
 * `PRAGMA data_version` with every commit by another connection or process sharing the file, so
 * an entry can never outlive the data it was computed from. Any write anywhere clears everything:
 * coarse, but exact, and reads between writes (screens reloading the same list) are the hot path.
 * Inside a transaction nothing is cached, since its changes may still roll back.
 * Callers must treat what they get as immutable: the same objects are handed to every caller.
 */
class SnapshotCache<T> {
  private version = '';
  private readonly entries = new Map<string, T>();
  private readonly totalChanges: Database.Statement<[], number>;
  private readonly dataVersion: Database.Statement<[], number>;

  constructor(private readonly sqlite: Database.Database) {
    this.totalChanges = sqlite.prepare<[], number>('SELECT total_changes()').pluck();
    this.dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  get(key: string, compute: () => T): T {
    if (this.sqlite.inTransaction) return compute();
    const version = `${this.dataVersion.get()}:${this.totalChanges.get()}`;
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Most recently used last, so the oldest entry is the first one evicted.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(key, value);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}

/** One cache per database connection, like the prepared statements. */
export function snapshotCache<T>(): (db: Db) => SnapshotCache<T> {
  return preparedPerDb((db: Db) => new SnapshotCache<T>(sqliteOf(db)));
}
