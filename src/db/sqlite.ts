import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { E_TIMEOUT, Mutex, withTimeout, type MutexInterface } from 'async-mutex';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fromPackageRoot } from '../lib/package-root';
import { markHandle, type Database, type Db, type StoreObserver, type TransactionKind } from './database';
import { DatabaseUnavailable } from './errors';
import * as schema from './schema/index';
import { TransactionScope } from './scope';

const MIGRATIONS_DIR = fromPackageRoot('drizzle/sqlite');

/**
 * How long a write waits for the write lock: this instance's (the async lock below) and, after
 * that, another process's on the same file (SQLite's busy timeout, which blocks the event loop,
 * hence short). Past it the request answers 503 with Retry-After
 * (docs/operations.md#when-the-database-is-away-or-busy).
 */
const LOCK_WAIT_MS = 1_000;

/** How often a write waiting for another process's lock tries again. */
const LOCK_RETRY_MS = 3;

/**
 * How a commit reaches the disk (WAL). `full` syncs the log before the commit returns: an
 * acknowledged write survives a power cut. `normal` syncs only at checkpoints: faster, and safe
 * against a crash of the process, but the last commits may be lost with the machine.
 */
export type SqliteSynchronous = 'full' | 'normal';

function connect(path: string, options: { readOnly: boolean; synchronous: SqliteSynchronous }): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  // SQLite's own wait blocks the thread (and with it whatever holds the lock in this process):
  // the writer does not wait there but tries again between turns of the event loop (`beginWrite`).
  sqlite.pragma(`busy_timeout = ${options.readOnly ? LOCK_WAIT_MS : 0}`);
  sqlite.pragma('cache_size = -32000');
  sqlite.pragma('temp_store = MEMORY');
  // Only the writer writes: a write reaching another connection is a bug, refused by SQLite.
  if (options.readOnly) sqlite.pragma('query_only = ON');
  return sqlite;
}

/**
 * Starts a transaction, waiting for a lock another connection holds (another process, or another
 * instance in this one) without blocking the event loop, for at most `LOCK_WAIT_MS`.
 */
async function begin(statement: BetterSqlite3.Statement): Promise<void> {
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      statement.run();
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= giveUpAt) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/** A lock that answers 503 instead of waiting past `LOCK_WAIT_MS`. */
async function acquire(lock: MutexInterface, what: string): Promise<MutexInterface.Releaser> {
  try {
    return await lock.acquire();
  } catch (err) {
    if (err === E_TIMEOUT) throw new DatabaseUnavailable(`Waited more than ${LOCK_WAIT_MS} ms for ${what}.`);
    throw err;
  }
}

/**
 * Runs the migrations with foreign keys off, as SQLite asks for a table rebuilt to change a column
 * (`0017_guests.sql`): dropping the old table must not cascade to the rows referencing it. The
 * migrations run in one transaction, inside which the pragma would do nothing, so it is set around
 * them; afterwards every reference must still hold, or the store does not open.
 */
function migrateWithoutForeignKeys(writer: BetterSqlite3.Database): void {
  writer.pragma('foreign_keys = OFF');
  try {
    migrate(drizzle(writer), { migrationsFolder: MIGRATIONS_DIR });
    const broken = writer.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0)
      throw new Error(`The migrations left ${broken.length} broken references: ${JSON.stringify(broken.slice(0, 5))}`);
  } finally {
    writer.pragma('foreign_keys = ON');
  }
}

/**
 * SQLite at `path` (WAL), migrated at open: one writer connection behind an async lock, so a
 * transaction's awaits never let another request's statements into it; one reader connection for
 * everything outside transactions (in WAL it reads the last commit, never an open transaction's
 * rows); one more for consistent snapshots. Several processes may share the file: SQLite's own
 * lock orders their writers.
 */
export function openSqlite(
  path: string,
  options: {
    checked: boolean;
    readOnly?: boolean;
    observer?: StoreObserver | undefined;
    synchronous?: SqliteSynchronous;
  },
): Database {
  mkdirSync(dirname(path), { recursive: true });
  const synchronous = options.synchronous ?? 'full';
  // A read-only store (the export worker's) reads a file another connection made and migrated.
  const writer = connect(path, { readOnly: options.readOnly ?? false, synchronous });
  if (!options.readOnly) migrateWithoutForeignKeys(writer);
  const reader = connect(path, { readOnly: true, synchronous });
  const snapshotReader = connect(path, { readOnly: true, synchronous });
  const scope = new TransactionScope(options.checked);

  const readDb = markHandle(drizzle(reader, { schema, logger: scope.guard() }), {
    dialect: 'sqlite',
    transaction: false,
  });
  const writeDb = markHandle(drizzle(writer, { schema }), { dialect: 'sqlite', transaction: true });
  const snapshotDb = markHandle(drizzle(snapshotReader, { schema }), { dialect: 'sqlite', transaction: true });
  const writeLock = withTimeout(new Mutex(), LOCK_WAIT_MS, E_TIMEOUT);
  const snapshotLock = withTimeout(new Mutex(), LOCK_WAIT_MS, E_TIMEOUT);
  const statements = {
    begin: writer.prepare('BEGIN IMMEDIATE'),
    commit: writer.prepare('COMMIT'),
    rollback: writer.prepare('ROLLBACK'),
    beginRead: snapshotReader.prepare('BEGIN'),
    endRead: snapshotReader.prepare('COMMIT'),
    ping: reader.prepare('SELECT 1 AS ok'),
  };
  let closed = false;
  const { observer } = options;

  async function inTransaction<T>(
    kind: TransactionKind,
    lock: MutexInterface,
    connection: BetterSqlite3.Database,
    handle: Db,
    sql: { begin: BetterSqlite3.Statement; end: BetterSqlite3.Statement; undo: BetterSqlite3.Statement },
    fn: (db: Db) => Promise<T>,
  ): Promise<T> {
    if (scope.inside) throw new Error('A transaction cannot be opened inside another one; pass its handle on instead.');
    if (closed) throw new DatabaseUnavailable('The database is closed.');
    // The wait covers this instance's lock and another process's; a wait given up on counts too.
    const waitStarted = performance.now();
    const waited = () =>
      observer?.lockWaited(kind === 'write' ? 'writer' : 'snapshot', (performance.now() - waitStarted) / 1000);
    let release: MutexInterface.Releaser;
    try {
      release = await acquire(lock, 'the database');
    } catch (err) {
      waited();
      throw err;
    }
    try {
      try {
        await begin(sql.begin);
      } finally {
        waited();
      }
      try {
        const result = await scope.run(() => fn(handle));
        sql.end.run();
        observer?.transactionEnded(kind, 'commit');
        return result;
      } catch (err) {
        // A failure SQLite answers by rolling back itself (disk full, I/O) leaves nothing to undo.
        if (connection.inTransaction) sql.undo.run();
        observer?.transactionEnded(kind, 'rollback');
        throw err;
      }
    } finally {
      release();
    }
  }

  return {
    dialect: 'sqlite',
    db: readDb,
    transaction: (fn) =>
      inTransaction(
        'write',
        writeLock,
        writer,
        writeDb,
        { begin: statements.begin, end: statements.commit, undo: statements.rollback },
        fn,
      ),
    snapshot: (fn) =>
      inTransaction(
        'snapshot',
        snapshotLock,
        snapshotReader,
        snapshotDb,
        { begin: statements.beginRead, end: statements.endRead, undo: statements.endRead },
        fn,
      ),
    // The single writer holds the whole database for the transaction.
    lockWorkshop: async () => {},
    lockFreeWorkshops: async (_tx, workshopIds) => new Set(workshopIds),
    answers: async () => {
      try {
        return !closed && statements.ping.get() !== undefined;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      // A transaction still running finishes first (within the lock's wait).
      const release = await writeLock.acquire().catch(() => undefined);
      for (const connection of [reader, snapshotReader, writer]) if (connection.open) connection.close();
      release?.();
    },
  };
}
