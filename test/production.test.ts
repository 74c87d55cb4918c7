import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningPort, startProcess } from './helpers/processes';
import { until } from './helpers/wait';

/* Production runs the built bundle under plain node; `npm start` must stop on SIGTERM too. */

const dir = mkdtempSync(join(tmpdir(), 'workshops-production-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether a process of that id still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the built server', () => {
  beforeAll(async () => {
    await promisify(execFile)(process.execPath, ['scripts/build.mjs']);
  }, 60_000);

  it('serves from dist/ under plain node, catalogs and migrations included, and stops cleanly on SIGTERM', async () => {
    const run = startProcess([process.execPath, 'dist/main.js'], {
      PORT: '0',
      LOG_REQUESTS: '0',
      DATABASE_PATH: join(dir, 'dist', 'w.db'),
      FILES_DIR: join(dir, 'dist', 'files'),
    });
    const port = await listeningPort(run);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dist@example.test', password: 'long enough', name: 'Dist' }),
    });
    expect(signup.status).toBe(201);
    const { token } = (await signup.json()) as { token: string };
    const templates = (await (
      await fetch(`${base}/v1/templates`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as unknown[];
    expect(templates.length).toBeGreaterThan(0);
    const canvases = (await (
      await fetch(`${base}/v1/canvas`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as unknown[];
    expect(canvases.length).toBeGreaterThan(0);

    // Exports run in dist/export-worker.js, with the fonts and libraries found from dist/.
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const workshop = (await (
      await fetch(`${base}/v1/workshops`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ title: 'Built 构建' }),
      })
    ).json()) as { id: string };
    for (const type of ['pdf', 'xlsx']) {
      const created = (await (
        await fetch(`${base}/v1/workshops/${workshop.id}/exports`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ type }),
        })
      ).json()) as { id: string };
      let made: { state: string; url: string | null; message: string | null } = {
        state: 'pending',
        url: null,
        message: null,
      };
      await until(
        async () => {
          made = (await (
            await fetch(`${base}/v1/workshops/${workshop.id}/exports/${created.id}`, { headers: auth })
          ).json()) as typeof made;
          return made.state !== 'pending';
        },
        `the ${type} export`,
        20_000,
        50,
      );
      expect(made.state, made.message ?? '').toBe('success');
    }

    // The live screen's page and script come from dist/screen/, built with the server (no esbuild at run time).
    const screen = await fetch(`${base}/screen/${workshop.id}`);
    expect(screen.status).toBe(200);
    const script = /src="(\/screen\/assets\/app-\w+\.js)"/.exec(await screen.text())?.[1];
    const bundle = await fetch(`${base}${script}`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(10_000);

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});

describe('npm start', () => {
  it('stops, server and all, when the npm process gets SIGTERM', async () => {
    const run = startProcess(['npm', 'start', '--silent'], {
      PORT: '0',
      LOG_REQUESTS: '0',
      DATABASE_PATH: join(dir, 'npm', 'w.db'),
      FILES_DIR: join(dir, 'npm', 'files'),
    });
    const port = await listeningPort(run);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    run.child.kill('SIGTERM');
    await run.exited;
    // Nothing keeps answering on the port once npm is gone.
    const answering = () =>
      fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      );
    await until(async () => !(await answering()), 'nothing answering on the port', 10_000, 100);
    expect(alive(run.child.pid!)).toBe(false);
  }, 30_000);
});
