import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fromPackageRoot } from '../lib/package-root';
import * as schema from './schema/index';

export type Db = BetterSQLite3Database<typeof schema>;
/** The handle services receive inside a write transaction; same query API as Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the database or a transaction on it: read helpers accept both. */
export type DbOrTx = Db | Tx;

export interface Database_ {
  sqlite: Database.Database;
  db: Db;
  close(): void;
}
export type { Database_ as DatabaseHandle };

const MIGRATIONS_DIR = fromPackageRoot('drizzle');

/** How long a write waits for another connection's write lock. */
const BUSY_TIMEOUT_MS = 1_000;

/**
 * Opens the SQLite file with the pragmas the service relies on and runs pending migrations.
 * WAL lets readers proceed during writes; busy_timeout lets a second instance on the same file
 * wait for the write lock instead of failing at once.
 */
export function openDatabase(path: string): Database_ {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Waiting for the lock blocks this process's event loop (better-sqlite3 is synchronous), so the
  // wait is short; a write that cannot get the lock in time answers 503 with Retry-After.
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('cache_size = -32000');
  sqlite.pragma('temp_store = MEMORY');
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return {
    sqlite,
    db,
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * A read-only connection to a database another connection opened (and migrated): for readers on
 * other threads, such as the export worker, whose long reads must not hold the service's own.
 */
export function openReader(path: string): Database_ {
  const sqlite = new Database(path, { readonly: true, fileMustExist: true });
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const db = drizzle(sqlite, { schema });
  return {
    sqlite,
    db,
    close() {
      if (sqlite.open) sqlite.close();
    },
  };
}

/** The better-sqlite3 connection under a Drizzle handle (`drizzle()` keeps it as `$client`). */
export function sqliteOf(db: Db): Database.Database {
  return (db as Db & { $client: Database.Database }).$client;
}

/** True when the database answers a trivial query (used by /health). */
export function databaseAnswers(handle: Database_): boolean {
  try {
    return handle.sqlite.open && handle.sqlite.prepare('select 1 as ok').get() !== undefined;
  } catch {
    return false;
  }
}
