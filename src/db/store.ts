import type { Config } from '../config';
import type { Database, StoreObserver } from './database';
import { openPostgres } from './postgres';
import { openSqlite } from './sqlite';

/**
 * Opens the store the configuration names, running its pending migrations: the one place the
 * service chooses between SQLite (`DATABASE_PATH`, the default) and PostgreSQL (`DATABASE_URL`).
 * A query through the read handle inside a transaction fails outside production (`scope.ts`).
 * `observer` hears of every transaction and lock wait (the app's metrics).
 */
export async function openStore(
  config: Pick<Config, 'databasePath' | 'databaseUrl' | 'databasePoolSize' | 'sqliteSynchronous'>,
  observer?: StoreObserver,
): Promise<Database> {
  const checked = transactionsChecked();
  if (config.databaseUrl)
    return openPostgres(config.databaseUrl, { checked, poolSize: config.databasePoolSize, observer });
  return openSqlite(config.databasePath, { checked, observer, synchronous: config.sqliteSynchronous });
}

/** Whether transactions are watched for queries that bypass them (`scope.ts`): everywhere but in production. */
function transactionsChecked(): boolean {
  return process.env.NODE_ENV !== 'production';
}

/** Long reads of whole workshops (an export) may take longer than a request's statements. */
const READER_STATEMENT_LIMIT_MS = 60_000;

/**
 * A store for reading only, on a database another process opened and migrated: for readers on
 * other threads (the export worker), whose long reads must not hold the service's connections.
 */
export async function openReaderStore(config: Pick<Config, 'databasePath' | 'databaseUrl'>): Promise<Database> {
  const checked = transactionsChecked();
  if (config.databaseUrl)
    return openPostgres(config.databaseUrl, {
      checked,
      poolSize: 2,
      migrate: false,
      statementLimitMs: READER_STATEMENT_LIMIT_MS,
    });
  return openSqlite(config.databasePath, { checked, readOnly: true });
}
