import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../../src/db/postgres';
import { postgresBinaries } from './binaries';

/*
 * The PostgreSQL the suite's `postgres` project runs on: a throwaway cluster from Debian's
 * `postgresql` package, made in a temporary folder and started on a free port for the run, with
 * one migrated template database each test server's database is copied from (`CREATE DATABASE …
 * TEMPLATE`, a fraction of a second). Durability is off (`fsync=off`): nothing here must survive.
 * `initdb` refuses to run as root: as root, the cluster runs as the `postgres` user.
 */

declare module 'vitest' {
  interface ProvidedContext {
    postgres: { baseUrl: string; template: string } | null;
  }
}

export const TEMPLATE = 'workshops_template';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export default async function startPostgres(project: TestProject): Promise<() => void> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql), and the postgres project needs it.');
  const asRoot = process.getuid?.() === 0;
  const run = (program: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { stdio: 'pipe' }) : execFileSync(join(bin, program), args, { stdio: 'pipe' });

  const dir = mkdtempSync(join(tmpdir(), 'workshops-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  // C locale: text compares as bytes, as the service requires (`requireBytewiseText`).
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C', '-E', 'UTF8']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=400',
    '-c shared_buffers=64MB',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already stopped.
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const baseUrl = `postgres://postgres@127.0.0.1:${port}/`;
    const admin = new pg.Client({ connectionString: `${baseUrl}postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    await admin.end();
    const store = await openPostgres(`${baseUrl}${TEMPLATE}`, { strict: true, poolSize: 1 });
    await store.close();
    project.provide('postgres', { baseUrl, template: TEMPLATE });
  } catch (err) {
    stop();
    throw err;
  }
  return stop;
}
