import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';

/** The store this run tests the service on: the `postgres` project sets TEST_STORE (vitest.config.ts). */
export const testStore: 'sqlite' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const info = inject('postgres');
  if (!info) throw new Error('No PostgreSQL for this run: the postgres project starts one (test/setup/postgres.ts).');
  const client = new pg.Client({ connectionString: `${info.baseUrl}postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A database of its own for one test server, copied from the run's migrated template: its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const info = inject('postgres')!;
  const name = `t_${randomBytes(8).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${info.template}`));
  return `${info.baseUrl}${name}`;
}

/**
 * An empty database of its own (not migrated: the server migrates it at start), made from
 * `template0` with the locale settings given (`LOCALE 'C.UTF-8'`, `LOCALE_PROVIDER icu …`): its URL.
 */
export async function emptyPostgresDatabase(locale: string): Promise<string> {
  const name = `t_${randomBytes(8).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' ${locale}`));
  return `${inject('postgres')!.baseUrl}${name}`;
}

/** Drops a database `freshPostgresDatabase` or `emptyPostgresDatabase` made, whoever is still connected. */
export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Puts a migrated SQLite database at `path`: a copy of the run's template (test/setup/sqlite.ts),
 * as PostgreSQL's databases are copied from theirs.
 */
export function freshSqliteDatabase(path: string): void {
  copyFileSync(inject('sqliteTemplate'), path);
}
