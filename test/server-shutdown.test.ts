import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import { queryRows } from '../src/db/sql';
import { createServer } from '../src/server';
import { until } from './helpers/wait';

/*
 * `main.ts` gives a clean shutdown 10 s before it exits anyway, so what `close()` waits for (the
 * sync endpoint, the mail being sent, the export being made) shares one limit rather than adding up.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** An SMTP server that takes connections and never greets: a send on it hangs until `hangUp`. */
async function silentSmtp(): Promise<{ port: number; hangUp(): void }> {
  const held: Socket[] = [];
  const server = createTcpServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hangUp = () => {
    for (const socket of held) socket.destroy();
    server.close();
  };
  return { port: (server.address() as { port: number }).port, hangUp };
}

describe('shutdown', () => {
  it('waits for a stuck sync endpoint and a hanging mail send side by side, within one limit', async () => {
    const smtp = await silentSmtp();
    const dir = mkdtempSync(join(tmpdir(), 'workshops-shutdown-'));
    const deps = await createDeps(testConfig({ databasePath: join(dir, 'test.db'), filesDir: join(dir, 'files'), smtpUrl: `smtp://127.0.0.1:${smtp.port}` }));
    const realClose = deps.collab.close.bind(deps.collab);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failed = async () =>
      Number((await queryRows<{ n: number }>(deps.database.db, sql`SELECT count(*) AS n FROM outbox WHERE last_error IS NOT NULL`))[0]!.n);
    cleanups.push(async () => {
      // The send still hanging ends, and is recorded as failed, before the database closes.
      smtp.hangUp();
      await until(async () => (await failed()) > 0, 'the hung send recorded as failed', 3_000);
      logged.mockRestore();
      await realClose();
      await deps.database.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const limitMs = 1_000;
    const server = await createServer(deps, { port: 0, hostname: '127.0.0.1', closeLimitMs: limitMs, shutdownGraceMs: 200 });
    deps.collab.close = () => new Promise<void>(() => {});

    const signup = await fetch(`${server.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'shut@example.com', password: 'correct horse battery', name: 'Shut' }),
    });
    expect(signup.status).toBe(201);
    const attempts = async () =>
      Number((await queryRows<{ n: number }>(deps.database.db, sql`SELECT coalesce(max(attempts), 0) AS n FROM outbox`))[0]!.n);
    await until(async () => (await attempts()) > 0, 'the confirmation mail being sent', 3_000);

    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('closing the sync endpoint took longer'));
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('finishing the mail being sent took longer'));
    expect(took).toBeLessThan(2 * limitMs);
  });
});
