import type { Config } from '../config';
import type { Database } from './database';
import { openSqlite } from './sqlite';

/**
 * Opens the store the configuration names, running its pending migrations: the one place the
 * service chooses its store. A query through the read handle inside a transaction fails outside
 * production (`scope.ts`).
 */
export async function openStore(config: Pick<Config, 'databasePath'>): Promise<Database> {
  const strict = process.env.NODE_ENV !== 'production';
  return openSqlite(config.databasePath, { strict });
}

/**
 * A store for reading only, on a database another process opened and migrated: for readers on
 * other threads (the export worker), whose long reads must not hold the service's connections.
 */
export async function openReaderStore(config: Pick<Config, 'databasePath'>): Promise<Database> {
  return openSqlite(config.databasePath, { strict: true, readOnly: true });
}
