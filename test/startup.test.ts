import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from './helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'workshops-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `src/main.ts` as `npm start` does, with output piped (as to a log file). */
function runMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_PATH: join(dir, 'w.db'), FILES_DIR: join(dir, 'files'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('startup problems', () => {
  it('names a bad PORT in one line and exits 1', async () => {
    const run = runMain({ PORT: 'abc' });
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr())).toEqual(['Invalid configuration: PORT="abc": expected a port number from 0 to 65535']);
  });

  it('says in one line that the port is taken, and exits 1', async () => {
    const taken = createServer().listen(0);
    await new Promise((resolve) => taken.once('listening', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = runMain({ PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(lines(run.stderr())).toEqual([`Port ${port} is already in use; stop what listens there or set PORT to another port.`]);
    } finally {
      taken.close();
    }
  });
});

describe('request log', () => {
  it('writes one JSON line per request, without colour codes, when the output is a file', async () => {
    const run = runMain({ PORT: '0', LOG_REQUESTS: '1' });
    try {
      const portIn = () => /\(port (\d+),/.exec(run.stdout())?.[1];
      await until(() => portIn() !== undefined, 'the start line naming the port', 15_000);
      const port = Number(portIn());
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/v1/user/me?token=secret`)).status).toBe(401);
      await until(() => lines(run.stdout()).filter((l) => l.startsWith('{')).length >= 2, 'two request log lines', 5_000);
      const logged = lines(run.stdout()).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      expect(logged).toEqual([
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/health', status: 200 }),
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/v1/user/me', status: 401 }),
      ]);
      expect(run.stdout()).not.toContain('\u001b[');
      expect(run.stdout()).not.toContain('secret');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });
});
