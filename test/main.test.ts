import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningPort, serverCommand, startProcess } from './helpers/processes';

const dir = mkdtempSync(join(tmpdir(), 'workshops-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `src/main.ts` the way `npm start` does, on a port the OS picks, and waits for it to listen. */
async function startMain(env: Record<string, string>) {
  const run = startProcess(serverCommand(), { PORT: '0', LOG_REQUESTS: '0', ...env });
  return { ...run, port: await listeningPort(run), output: () => run.stdout() + run.stderr() };
}

describe('main', () => {
  it('migrates a new database, serves, keeps its secret and stops cleanly on SIGTERM', async () => {
    const databasePath = join(dir, 'nested', 'workshops.db');
    const server = await startMain({ DATABASE_PATH: databasePath, FILES_DIR: join(dir, 'files') });
    const health = await fetch(`http://127.0.0.1:${server.port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', mail: 'outbox' });
    expect(existsSync(join(dir, 'nested', 'secret'))).toBe(true);

    const signup = await fetch(`http://127.0.0.1:${server.port}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'main@example.test', password: 'long enough', name: 'Main' }),
    });
    expect(signup.status).toBe(201);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('SIGTERM');

    // The data survived: a second start on the same file knows the user.
    const again = await startMain({ DATABASE_PATH: databasePath, FILES_DIR: join(dir, 'files') });
    const login = await fetch(`http://127.0.0.1:${again.port}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'main@example.test', password: 'long enough' }),
    });
    expect(login.status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});
