import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import { awarenessUpdateMessage } from '../src/collab/protocol';
import { useDocs, useServer, useUsers } from './helpers/cast';
import { engineOf, rawMember } from './helpers/collab';
import { createUser, seedMember, seedWorkshopWith } from './helpers/factories';
import { until } from './helpers/wait';

/*
 * A sync client sending faster than the server handles its messages (each is checked against the
 * database, an update is stored in a write of its own) must not grow the server's memory: past a
 * small backlog the server stops reading its socket, and the client's messages wait on its side.
 */

const t = useServer();
const [facilitator, participant] = useUsers(t, 'Fran', 'Pat');
const docs = useDocs(t);

/**
 * Messages a connection may have waiting before its socket is no longer read (`sync-server.ts`),
 * plus those that one read of the socket already brought (64 KiB: some 32 of these messages).
 */
const BOUND = 32 + 40;

/** An awareness update (y-protocols encoding) for one client id, padded to about 2 KiB. */
function awarenessEntry(clientId: number, clock: number, n: number): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint(encoder, clientId);
  encoding.writeVarUint(encoder, clock);
  encoding.writeVarString(encoder, JSON.stringify({ n, padding: 'x'.repeat(2_000) }));
  return awarenessUpdateMessage(encoding.toUint8Array(encoder));
}

const slowed: Array<() => void> = [];
afterEach(() => {
  for (const restore of slowed.splice(0)) restore();
});

/** Makes each check of a token take `ms` longer, as a busy database would. */
function slowDown<K extends 'isAlive' | 'authenticate'>(method: K, ms: number) {
  const auth = t.deps.auth;
  const real = auth[method];
  auth[method] = (async (...args: Parameters<typeof real>) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return (real as (...a: typeof args) => ReturnType<typeof real>).apply(auth, args);
  }) as typeof real;
  slowed.push(() => (auth[method] = real));
}

describe('a sync client sending faster than its messages are handled', () => {
  it('keeps its backlog bounded, from before it is let in to the last message, and loses none of them', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const watcher = await docs.synced(w.id, facilitator);
    slowDown('authenticate', 300);
    slowDown('isAlive', 2);

    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, engineOf(t).usage().syncBacklog)), 1);
    try {
      // 400 messages of 2 KiB, sent at once, starting while the token is still being checked.
      const raw = await rawMember(t, w.id, participant.token);
      const sent = 400;
      for (let n = 1; n <= sent; n++) raw.send(awarenessEntry(4242, n, n));
      await until(
        () => watcher.provider.awareness.getStates().get(4242)?.n === sent,
        'the last message handled and relayed',
        15_000,
      );
      expect(raw.ws.readyState).toBe(raw.ws.OPEN);
      raw.ws.close();
    } finally {
      clearInterval(sample);
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(BOUND);
  }, 30_000);

  it('closes a connection it stopped reading at once, whatever the message it is handling', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    await docs.synced(w.id, facilitator);
    const leaving = await createUser(t, 'Leaving');
    await seedMember(t, w.id, leaving);
    const raw = await rawMember(t, w.id, leaving.token);
    // The message being handled waits long on the database; those after it pile up.
    const auth = t.deps.auth;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be restored, and called with its `this`
    const isAlive = auth.isAlive;
    let stuck = true;
    auth.isAlive = async (tokenHash) => {
      if (stuck) await new Promise((resolve) => setTimeout(resolve, 2_500));
      return isAlive.call(auth, tokenHash);
    };
    slowed.push(() => (auth.isAlive = isAlive));
    for (let n = 1; n <= 200; n++) raw.send(awarenessEntry(4343, n, n));
    await until(() => engineOf(t).usage().syncBacklog >= 32, 'the connection no longer read');
    stuck = false;
    const started = Date.now();
    expect((await t.request('POST', '/v1/auth/logout', { token: leaving.token })).status).toBe(204);
    // Its close handshake needs the client's answer read: the socket is read again to finish it.
    expect((await raw.closed).code).toBe(4401);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
