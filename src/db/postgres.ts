import { drizzle } from 'drizzle-orm/node-postgres';
import { markHandle, type Database, type StoreObserver } from './database';
import { migrateOnce } from './postgres-migrate';
import { createPool, STATEMENT_LIMIT_MS } from './postgres-pool';
import { PostgresTransactions } from './postgres-transactions';
import * as schema from './schema-pg/index';
import { TransactionScope } from './scope';

/*
 * The PostgreSQL store, in three parts: the pool and its time limits (postgres-pool.ts), the
 * migrations at open (postgres-migrate.ts), the transaction runner and row locks
 * (postgres-transactions.ts).
 */

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
 * PostgreSQL at `url` (14 or later), migrated at open (once across instances starting together):
 * a pool of connections; a transaction holds one connection for its whole body and runs at READ
 * COMMITTED, where writes take row locks first (`lockWorkshop`). Reads outside transactions go to
 * any pooled connection. The database may have any locale: every text column is declared with the
 * `C` collation (migration 0010), so lists come in the same order as from SQLite.
 */
export async function openPostgres(url: string, options: PostgresOptions): Promise<Database> {
  const statementLimitMs = options.statementLimitMs ?? STATEMENT_LIMIT_MS;
  const pool = createPool(url, options.poolSize, statementLimitMs);

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
  const transactions = new PostgresTransactions(pool, scope, options.observer);

  return {
    dialect: 'postgres',
    db: readDb,
    transaction: (fn) => transactions.run('write', 'BEGIN', fn),
    snapshot: (fn) => transactions.run('snapshot', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn),
    lockWorkshop: (tx, workshopId) => transactions.lockWorkshop(tx, workshopId),
    lockFreeWorkshops: (tx, workshopIds) => transactions.lockFreeWorkshops(tx, workshopIds),
    async answers() {
      if (transactions.closed) return false;
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (transactions.closed) return;
      transactions.closed = true;
      await pool.end();
    },
  };
}
