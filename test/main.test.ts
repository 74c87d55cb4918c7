import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'workshops-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `src/main.ts` the way `npm start` does, on a port the OS picks, and waits for it to listen. */
async function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', LOG_REQUESTS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /\(port (\d+),/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, exited, output: () => output };
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

  it('refuses to start on an invalid setting, naming it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'not-a-port', DATABASE_PATH: join(dir, 'x.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('PORT');
  });
});
