import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningPort, serverCommand, startProcess } from './helpers/processes';
import { until } from './helpers/wait';

/*
 * Among the slowest files (about 15 s): each test starts `src/main.ts` as `npm start` does, a
 * process importing the whole server from source (one to three seconds before it can say a word),
 * because what is tested is what that process prints and how it exits.
 */

const dir = mkdtempSync(join(tmpdir(), 'workshops-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `src/main.ts` as `npm start` does, over this file's data folder unless told otherwise. */
const runMain = (env: Record<string, string>) =>
  startProcess(serverCommand(), { DATABASE_PATH: join(dir, 'w.db'), FILES_DIR: join(dir, 'files'), ...env });

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('startup problems', () => {
  it('names a bad PORT in one line and exits 1', async () => {
    const run = runMain({ PORT: 'abc' });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr())).toEqual(['Invalid configuration: PORT="abc": expected a port number from 0 to 65535']);
  });

  it('names a bad SQLITE_SYNCHRONOUS in one line and exits 1', async () => {
    const run = runMain({ SQLITE_SYNCHRONOUS: 'off' });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr())).toEqual(['Invalid configuration: SQLITE_SYNCHRONOUS="off": expected full or normal']);
  });

  it('says in one line that the port is taken, and exits 1', async () => {
    const taken = createServer().listen(0);
    await new Promise((resolve) => taken.once('listening', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = runMain({ PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(lines(run.stderr())).toEqual([
        `Port ${port} is already in use; stop what listens there or set PORT to another port.`,
      ]);
    } finally {
      taken.close();
    }
  });
});

describe('mail without SMTP', () => {
  it('prints a queued mail with its link, and the link opens a page that confirms the address', async () => {
    const run = runMain({ PORT: '0', LOG_REQUESTS: '0', DATABASE_PATH: join(dir, 'mail.db') });
    try {
      const port = await listeningPort(run);
      const base = `http://127.0.0.1:${port}`;
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'newcomer@example.test', password: 'long enough', name: 'New' }),
      });
      expect(signup.status).toBe(201);
      const mailLine = () =>
        lines(run.stdout()).find((l) => l.startsWith('[mail] to newcomer@example.test: Confirm your e-mail address'));
      await until(() => mailLine() !== undefined, 'the queued mail printed to the log', 5_000, 50);
      const line = mailLine();
      const link = /(http:\/\/\S+\/confirm\?token=\S+)/.exec(line ?? '')?.[1];
      expect(link, run.stdout()).toBeDefined();
      const page = await fetch(new URL(new URL(link!).pathname + new URL(link!).search, base));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      // The console's page, which posts the link's token (test/console.test.ts, in a browser), as here.
      expect(await page.text()).toContain('/console/assets/');
      const confirmed = await fetch(`${base}/v1/auth/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: new URL(link!).searchParams.get('token') }),
      });
      expect(confirmed.status).toBe(204);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});

describe('request log', () => {
  it('writes one JSON line per request, without colour codes, when the output is a file', async () => {
    const run = runMain({ PORT: '0', LOG_REQUESTS: '1' });
    try {
      const port = await listeningPort(run);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/v1/user/me?token=secret`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/invitations/secret-invitation-token`)).status).toBe(200);
      await until(
        () => lines(run.stdout()).filter((l) => l.startsWith('{')).length >= 3,
        'three request log lines',
        5_000,
      );
      const logged = lines(run.stdout())
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(logged).toEqual([
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/health', status: 200 }),
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/v1/user/me', status: 401 }),
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/invitations/:token', status: 200 }),
      ]);
      expect(run.stdout()).not.toContain('\u001b[');
      expect(run.stdout()).not.toContain('secret');
      expect(run.stdout()).not.toContain('secret-invitation-token');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
