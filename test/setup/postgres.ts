import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from '../../scripts/postgres-cluster';
import { openPostgres } from '../../src/db/postgres';

/*
 * The PostgreSQL the suite's `postgres` project runs on: a throwaway cluster started for the run
 * (`scripts/postgres-cluster.ts`), with one migrated template database each test server's
 * database is copied from (`CREATE DATABASE … TEMPLATE`, a fraction of a second). Durability is off
 * (`fsync=off`): nothing here must survive.
 */

declare module 'vitest' {
  interface ProvidedContext {
    postgres: { baseUrl: string; template: string } | null;
  }
}

const TEMPLATE = 'workshops_template';

export default async function startPostgres(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster([
    'fsync=off',
    'synchronous_commit=off',
    'full_page_writes=off',
    'max_connections=400',
    'shared_buffers=64MB',
  ]);
  try {
    const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    await admin.end();
    const store = await openPostgres(`${cluster.baseUrl}${TEMPLATE}`, { checked: true, poolSize: 1 });
    await store.close();
    project.provide('postgres', { baseUrl: cluster.baseUrl, template: TEMPLATE });
  } catch (err) {
    cluster.stop();
    throw err;
  }
  return () => cluster.stop();
}
