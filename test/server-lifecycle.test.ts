import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import type { AppDeps } from '../src/deps';
import { createServer, type RunningServer } from '../src/server';
import { useServer } from './helpers/cast';
import { until } from './helpers/wait';
import { connectSocket } from './helpers/sockets';
import { createUser } from './helpers/factories';

const upgradeHead = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n`;

/** A raw TCP connection that collects what the server sends and notes when it closes. */
function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, opened, received: () => received };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  ]);
}

describe('stray upgrades', () => {
  const t = useServer();

  it('answers an upgrade to a path nobody serves with 404 and closes the connection', async () => {
    const raw = rawConnection(t.server.port);
    await raw.opened;
    raw.socket.write(`${upgradeHead('/somewhere/else')}\r\n`);
    await within(raw.closed, 2_000, 'stray upgrade closed');
    expect(raw.received()).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(raw.received().split('\r\n\r\n')[1]!)).toEqual({
      error: { code: 'not_found', message: expect.any(String) },
    });
  });

  it('leaves Socket.IO upgrades to Socket.IO', async () => {
    const user = await createUser(t, 'Wes');
    const client = await connectSocket(t.url, user.token, { transports: ['websocket'] });
    expect(client.socket.connected).toBe(true);
    client.close();
  });
});

describe('shutdown', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /** A server whose sync endpoint takes upgrades without answering and never finishes closing. */
  async function stuckServer(): Promise<RunningServer & { upgradesTaken(): number }> {
    const dir = mkdtempSync(join(tmpdir(), 'workshops-lifecycle-'));
    const deps: AppDeps = await createDeps(
      testConfig({ databasePath: join(dir, 'test.db'), filesDir: join(dir, 'files') }),
    );
    const realClose = deps.collab.close.bind(deps.collab);
    const server = await createServer(deps, {
      port: 0,
      hostname: '127.0.0.1',
      closeLimitMs: 400,
      shutdownGraceMs: 300,
    });
    let upgrades = 0;
    deps.collab.handleUpgrade = () => ++upgrades > 0;
    deps.collab.close = () => new Promise<void>(() => {});
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    cleanups.push(async () => {
      logged.mockRestore();
      await realClose();
      await deps.database.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return Object.assign(server, { upgradesTaken: () => upgrades });
  }

  const connectionsOf = (server: RunningServer) =>
    new Promise<number>((resolve, reject) =>
      server.httpServer.getConnections((err, count) => (err ? reject(err) : resolve(count))),
    );

  it('resolves promptly with a hanging raw upgrade open and a stuck sync endpoint', async () => {
    const server = await stuckServer();
    const hanging = rawConnection(server.port);
    await hanging.opened;
    hanging.socket.write(`${upgradeHead('/v1/sync/w1')}\r\n`);
    await until(() => server.upgradesTaken() === 1, 'the stuck sync endpoint took the upgrade');

    const started = Date.now();
    await within(server.close(), 3_000, 'server close');
    expect(Date.now() - started).toBeLessThan(2_000);
    await within(hanging.closed, 500, 'hanging upgrade cut');
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('closing the sync endpoint took longer'));
    // Closing twice is the same close.
    await within(server.close(), 100, 'second close');
  });

  it('stops accepting first, and answers upgrades arriving while closing with 503', async () => {
    const server = await stuckServer();
    // A request whose head is still arriving when the shutdown starts.
    const late = rawConnection(server.port);
    await late.opened;
    late.socket.write(upgradeHead('/v1/sync/w2'));
    await until(async () => (await connectionsOf(server)) === 1, 'the server holding the half-sent request');

    const closing = server.close();
    await until(() => !server.httpServer.listening, 'the server no longer listening');
    const refused = rawConnection(server.port);
    await within(refused.closed, 1_000, 'new connection refused');
    expect(refused.received()).toBe('');

    late.socket.write('\r\n');
    await within(late.closed, 1_000, 'upgrade during shutdown closed');
    expect(late.received()).toMatch(/^HTTP\/1\.1 503 /);
    await within(closing, 3_000, 'server close');
  });
});
