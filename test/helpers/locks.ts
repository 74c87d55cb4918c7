import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestServer } from './server';

/** Rows a write needs: those of `table` whose `column` equals `value`. */
export interface LockedRows {
  table: string;
  column: string;
  value: string;
}

/**
 * Holds, from a connection of its own (as another instance would), what a write of `t` needs
 * until `release`: SQLite's write lock on the whole file, or on PostgreSQL a row lock on `rows`.
 */
export async function holdWriteLock(t: TestServer, rows: LockedRows): Promise<{ release(): Promise<void> }> {
  const { databaseUrl, databasePath } = t.deps.config;
  if (!databaseUrl) {
    const other = new Database(databasePath);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    return {
      async release() {
        other.exec('ROLLBACK');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query('BEGIN');
  await other.query(`SELECT 1 FROM "${rows.table}" WHERE "${rows.column}" = $1 FOR UPDATE`, [rows.value]);
  return {
    async release() {
      await other.query('ROLLBACK');
      await other.end();
    },
  };
}
