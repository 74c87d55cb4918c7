import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';
import { fromPackageRoot } from '../lib/package-root';
import { MIGRATION_WAIT_MS, SILENCE_MARGIN_MS } from './postgres-pool';

const MIGRATIONS_DIR = fromPackageRoot('drizzle/postgres');

/**
 * Applies the migrations not applied yet, all in one transaction, holding a lock on the
 * migrations' table: instances starting together apply them once (the others wait, then find
 * nothing to do), and a failure leaves nothing half applied. The bookkeeping is Drizzle's own
 * (`drizzle.__drizzle_migrations`), so its tools read it too.
 */
export async function migrateOnce(pool: pg.Pool): Promise<void> {
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
