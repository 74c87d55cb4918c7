import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { fromPackageRoot } from '../lib/package-root';
import { markHandle, type Database, type Db, type StoreObserver, type TransactionKind } from './database';
import { CommitInDoubt, DatabaseUnavailable, isConnectionLost, isUnavailable } from './errors';
import * as schema from './schema-pg/index';
import { TransactionScope } from './scope';

const MIGRATIONS_DIR = fromPackageRoot('drizzle/postgres');

/*
 * Time limits: a database that is away, stuck or too busy answers 503 within 5 s, never a hang or
 * a 500 (docs/operations.md#when-the-database-is-away-or-busy). The server enforces its own
 * (`sessionSettings`), so what it gave up also releases its locks; the client adds one for a server
 * or network that fell silent.
 *
 * The longest a request waits on a database that stops answering: CONNECT_WAIT_MS for a
 * connection (2 s: all pooled ones busy, or a new one not started), then STATEMENT_LIMIT_MS +
 * SILENCE_MARGIN_MS for the first statement that gets no answer (2.5 s); its connection is then
 * dropped at once, without a ROLLBACK round trip (the server rolls back when it sees the connection
 * close, or after IDLE_IN_TRANSACTION_MS). 4.5 s in all: the statements before it were answered,
 * in the time they take on a healthy database. A database that answers every statement slowly but
 * within its limit is bounded per statement, not per request.
 */
/** A lock not had within this long fails the statement (55P03): the request answers 503. */
const LOCK_WAIT_MS = 1_000;
/** A pooled connection not had within this long: 503, rather than a request that hangs. */
const CONNECT_WAIT_MS = 2_000;
/** The server cancels a statement running longer (57014), releasing what it locked: 503. */
const STATEMENT_LIMIT_MS = 2_000;
/**
 * A statement still unanswered this long after the server's own limit would have ended it: the
 * server or the network is silent. The client gives it up ('Query read timeout') and drops the connection.
 */
const SILENCE_MARGIN_MS = 500;
/**
 * The server ends a session idle this long inside a transaction (25P03), releasing its row locks:
 * an instance frozen or cut off mid-transaction does not hold a workshop longer than this.
 */
const IDLE_IN_TRANSACTION_MS = 5_000;
/** How long an instance waits for another one's migrations before giving up its start. */
const MIGRATION_WAIT_MS = 120_000;

/** The server-side limits, set on every connection as it starts (libpq's `options`). */
function sessionSettings(statementLimitMs: number): string {
  return [
    `lock_timeout=${LOCK_WAIT_MS}`,
    `statement_timeout=${statementLimitMs}`,
    `idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
  ]
    .map((setting) => `-c ${setting}`)
    .join(' ');
}

/**
 * node-postgres answers `int8` (every `count(*)`) and `numeric` (every `sum()` of integers) as
 * strings, to keep precision no count here needs: the service reads numbers, as from SQLite.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  checked: boolean;
  /** Connections this instance keeps at most. */
  poolSize: number;
  /** Longest statement allowed (the export worker reads whole workshops); default `STATEMENT_LIMIT_MS`. */
  statementLimitMs?: number;
  /** Skip migrations (a reader of a database another process migrated). */
  migrate?: boolean;
  /** Hears of every transaction and lock wait (the app's metrics). */
  observer?: StoreObserver | undefined;
}

/**
 * Locks workshops' rows until the transaction ends, in the order of their ids (prepared once per
 * pooled connection; the ids as a JSON array, one statement for any number).
 */
function workshopLocks(db: NodePgDatabase<typeof schema>) {
  const { workshops } = schema;
  const rows = () =>
    db
      .select({ id: workshops.id })
      .from(workshops)
      .where(
        sql`${workshops.id} = ANY(ARRAY(SELECT json_array_elements_text(${sql.placeholder('workshopIds')}::json)))`,
      );
  return {
    // In id order, so two transactions locking several workshops cannot deadlock.
    waiting: rows().orderBy(workshops.id).for('update').prepare('store_lock_workshops'),
    // Waits for none, so the order does not matter.
    free: rows().for('update', { skipLocked: true }).prepare('store_lock_free_workshops'),
    // Which exist, locked or not: what `free` passed over is held elsewhere, or gone.
    existing: rows().prepare('store_workshops_existing'),
  };
}

/**
 * PostgreSQL at `url` (14 or later), migrated at open (once across instances starting together):
 * a pool of connections; a transaction holds one connection for its whole body and runs at READ
 * COMMITTED, where writes take row locks first (`lockWorkshop`). Reads outside transactions go to
 * any pooled connection. The database may have any locale: every text column is declared with the
 * `C` collation (migration 0010), so lists come in the same order as from SQLite.
 */
export async function openPostgres(url: string, options: PostgresOptions): Promise<Database> {
  const statementLimitMs = options.statementLimitMs ?? STATEMENT_LIMIT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: CONNECT_WAIT_MS,
    query_timeout: statementLimitMs + SILENCE_MARGIN_MS,
    options: sessionSettings(statementLimitMs),
    application_name: 'workshop-server',
    keepAlive: true,
    types,
  });
  // A pooled connection the server dropped while idle is replaced on next use; it must not crash the process.
  pool.on('error', (err) => console.error('[db] an idle PostgreSQL connection failed:', err.message));
  // The pool listens to idle connections only. One lost while a transaction holds it (the server
  // stopped, say) fails that transaction's statements, which answer 503 and leave it out of the
  // pool; its 'error' event, unheard, would end the process.
  pool.on('connect', (client) => client.on('error', () => {}));

  try {
    if (options.migrate !== false) await migrateOnce(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }

  const scope = new TransactionScope(options.checked);
  const readDb = markHandle(drizzle(pool, { schema, logger: scope.guard() }), {
    dialect: 'postgres',
    transaction: false,
  });
  // One handle per pooled connection, made once: its prepared statements stay with it.
  const handles = new WeakMap<pg.PoolClient, Db>();
  const locks = new WeakMap<Db, ReturnType<typeof workshopLocks>>();
  // The workshops each open transaction has locked: locking one again is free.
  const locked = new WeakMap<Db, Set<string>>();
  const handleOf = (client: pg.PoolClient) => {
    let handle = handles.get(client);
    if (!handle) {
      const pgHandle = drizzle(client, { schema });
      handle = markHandle(pgHandle, { dialect: 'postgres', transaction: true });
      handles.set(client, handle);
      locks.set(handle, workshopLocks(pgHandle));
    }
    return handle;
  };
  let closed = false;
  const { observer } = options;

  async function connect(): Promise<pg.PoolClient> {
    if (closed) throw new DatabaseUnavailable('The database is closed.');
    const waitStarted = performance.now();
    try {
      return await pool.connect();
    } catch (err) {
      throw new DatabaseUnavailable('No database connection could be had in time.', { cause: err });
    } finally {
      observer?.lockWaited('connection', (performance.now() - waitStarted) / 1000);
    }
  }

  function locksOf(tx: Db) {
    const lock = locks.get(tx);
    const held = locked.get(tx);
    if (!lock || !held) throw new Error('Workshops are locked with the handle of an open transaction.');
    return { lock, held };
  }

  async function lockWorkshop(tx: Db, workshopId: string): Promise<void> {
    const { lock, held } = locksOf(tx);
    if (held.has(workshopId)) return;
    // A row lock not had within `lock_timeout` fails the statement; that wait counts too.
    const waitStarted = performance.now();
    try {
      await lock.waiting.execute({ workshopIds: JSON.stringify([workshopId]) });
    } finally {
      observer?.lockWaited('workshop_row', (performance.now() - waitStarted) / 1000);
    }
    held.add(workshopId);
  }

  async function lockFreeWorkshops(tx: Db, workshopIds: readonly string[]): Promise<ReadonlySet<string>> {
    const { lock, held } = locksOf(tx);
    const wanted = workshopIds.filter((id) => !held.has(id));
    if (wanted.length > 0)
      for (const { id } of await lock.free.execute({ workshopIds: JSON.stringify(wanted) })) held.add(id);
    const passedOver = wanted.filter((id) => !held.has(id));
    // A workshop that is gone has nothing to wait for: its requests are answered (404) with the batch.
    const gone = new Set(passedOver);
    if (passedOver.length > 0)
      for (const { id } of await lock.existing.execute({ workshopIds: JSON.stringify(passedOver) })) gone.delete(id);
    return new Set(workshopIds.filter((id) => held.has(id) || gone.has(id)));
  }

  async function inTransaction<T>(kind: TransactionKind, begin: string, fn: (db: Db) => Promise<T>): Promise<T> {
    if (scope.inside) throw new Error('A transaction cannot be opened inside another one; pass its handle on instead.');
    const client = await connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const handle = handleOf(client);
      locked.set(handle, new Set());
      let result: T;
      try {
        result = await scope.run(() => fn(handle));
      } catch (err) {
        // A connection lost or silent is dropped, not asked to roll back: the ROLLBACK would wait
        // behind the statement still unanswered. The server rolls back as the connection closes,
        // or, if it cannot hear that, once its own limits end the statement and the idle session.
        if (isConnectionLost(err)) broken = err as Error;
        else await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        observer?.transactionEnded(kind, 'rollback');
        throw err;
      }
      try {
        await client.query('COMMIT');
      } catch (err) {
        // Counted with the rollbacks either way: neither is acknowledged.
        observer?.transactionEnded(kind, 'rollback');
        // The server's own refusal (a deferred check, a serialization failure) rolled it back.
        if (err instanceof pg.DatabaseError && !isConnectionLost(err)) throw err;
        // No answer: it may or may not have happened. Not acknowledged, and said so to the caller,
        // which must not undo what it did outside the database for it (`CommitInDoubt`).
        broken = err as Error;
        throw new CommitInDoubt('The database did not answer the commit; the write may or may not have been stored.', {
          cause: err,
        });
      }
      observer?.transactionEnded(kind, 'commit');
      return result;
    } catch (err) {
      // A connection that failed mid-transaction is not handed out again.
      if (isUnavailable(err)) broken ??= err as Error;
      throw err;
    } finally {
      locked.delete(handleOf(client));
      client.release(broken);
    }
  }

  return {
    dialect: 'postgres',
    db: readDb,
    transaction: (fn) => inTransaction('write', 'BEGIN', fn),
    snapshot: (fn) => inTransaction('snapshot', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn),
    lockWorkshop,
    lockFreeWorkshops,
    async answers() {
      if (closed) return false;
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * Applies the migrations not applied yet, all in one transaction, holding a lock on the
 * migrations' table: instances starting together apply them once (the others wait, then find
 * nothing to do), and a failure leaves nothing half applied. The bookkeeping is Drizzle's own
 * (`drizzle.__drizzle_migrations`), so its tools read it too.
 */
async function migrateOnce(pool: pg.Pool): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  const client = await pool.connect();
  try {
    // Two instances creating these at once can collide in the catalog: one then tries again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.query('CREATE SCHEMA IF NOT EXISTS drizzle');
        await client.query(
          'CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
        );
        break;
      } catch (err) {
        const code = (err as { code?: string }).code;
        // unique_violation on the catalog, duplicate_schema, duplicate_table, duplicate_object (the row type)
        if (attempt >= 5 || !['23505', '42P06', '42P07', '42710'].includes(code ?? '')) throw err;
      }
    }
    // The migrations' transaction may wait and run longer than a request's statements: the
    // client's own limit (`query_timeout`, node-postgres reads it per query too) follows the server's.
    const run = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      client.query<R>({ text, values, query_timeout: MIGRATION_WAIT_MS + SILENCE_MARGIN_MS } as pg.QueryConfig);
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = ${MIGRATION_WAIT_MS}`);
      await client.query(`SET LOCAL statement_timeout = ${MIGRATION_WAIT_MS}`);
      await run('LOCK TABLE drizzle.__drizzle_migrations IN EXCLUSIVE MODE');
      const { rows } = await run<{ created_at: string | number | null }>(
        'SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1',
      );
      const last = rows[0]?.created_at == null ? null : Number(rows[0].created_at);
      for (const migration of migrations) {
        if (last !== null && migration.folderMillis <= last) continue;
        for (const statement of migration.sql) if (statement.trim()) await run(statement);
        await run('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
          migration.hash,
          migration.folderMillis,
        ]);
      }
      await run('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}
