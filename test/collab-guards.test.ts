import { and, eq } from 'drizzle-orm';
import * as encoding from 'lib0/encoding';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { awarenessUpdateMessage, syncStep2UpdateMessage, updateMessage } from '../src/collab/protocol';
import { writeWorkshop } from '../src/db/write';
import { engineOf, rawMember, seedCanvas, sqlPlacement, sqlZone, storedUpdateCount } from './helpers/collab';
import { holdWriteLock } from './helpers/locks';
import { quietFor, until } from './helpers/wait';
import { createUser, seedCard, seedWorkshop, type TestUser, seedWorkshopWith } from './helpers/factories';
import { useDocs, useServer, useUsers } from './helpers/cast';
import { startTestServer, type TestServer } from './helpers/server';

const t = useServer();
const [facilitator, participant] = useUsers(t, 'Fran', 'Pat');
const docs = useDocs(t);

const workshop = (server = t) => seedWorkshopWith(server, facilitator, [participant]);

const connect = (workshopId: string, user: TestUser, server = t) => docs.synced(workshopId, user, server);

/** The document's zones of a workshop (loading it when needed), inside a write of its own. */
const documentZones = (workshopId: string) =>
  writeWorkshop(t.deps, workshopId, (tx, changes) => t.deps.collab.zones({ tx, changes }, workshopId));

/** An awareness update (y-protocols encoding) for one client id. */
function awarenessEntry(clientId: number, clock: number, state: unknown): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint(encoder, clientId);
  encoding.writeVarUint(encoder, clock);
  encoding.writeVarString(encoder, JSON.stringify(state));
  return awarenessUpdateMessage(encoding.toUint8Array(encoder));
}

describe('messages the server refuses', () => {
  it('closes a connection sending a malformed state vector with 4400, and keeps serving', async () => {
    const w = await workshop();
    const raw = await rawMember(t, w.id, participant.token);
    raw.send(new Uint8Array([0, 0, 4, 0xff, 0xff, 0xff, 0x0f]));
    expect((await raw.closed).code).toBe(4400);
    const bad = await rawMember(t, w.id, participant.token);
    bad.send(awarenessEntry(1, 1, 'x').subarray(0, 4));
    expect((await bad.closed).code).toBe(4400);
    const client = await connect(w.id, participant);
    expect(client.provider.synced).toBe(true);
  });

  it('refuses an update depending on changes the server lacks (another client id, one clock ahead)', async () => {
    const w = await workshop();
    const zone = (await seedCanvas(t, w.id))[0]!;
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const fac = await connect(w.id, facilitator);
    await until(() => fac.zones.has(zone), 'zone loaded');

    // A participant writes as the facilitator's client, after a change the server never got.
    const forge = new Y.Doc();
    Y.applyUpdate(forge, Y.encodeStateAsUpdate(fac.doc));
    forge.clientID = fac.doc.clientID;
    forge.getMap('cards').set('gap', 1);
    const before = Y.encodeStateVector(forge);
    forge.getMap('zones').set(zone, { ...fac.zones.get(zone), name: 'Taken over' });
    const raw = await rawMember(t, w.id, participant.token);
    const stored = await storedUpdateCount(t, w.id);
    // Its answer to the server's step 1 came first: no change of its own is on its way any more.
    raw.send(syncStep2UpdateMessage(Y.encodeStateAsUpdate(new Y.Doc())));
    raw.send(updateMessage(Y.encodeStateAsUpdate(forge, before)));
    expect((await raw.closed).code).toBe(4400);
    expect(await storedUpdateCount(t, w.id)).toBe(stored);

    // The facilitator's next change fills that clock: nothing pending may ride along with it.
    fac.cards.set(card.id, { position: 0, x: 1, y: 1 });
    await until(async () => (await sqlPlacement(t, card.id)).x === 1, 'facilitator move stored');
    // The forged zone rename must not surface later either: give a late apply the time to show.
    await quietFor(100, 'no forged zone rename applied after the next change');
    expect((await sqlZone(t, zone)).name).toBe('Zone 0');
    expect((await documentZones(w.id)).get(zone)?.name).toBe('Zone 0');
    expect(fac.zones.get(zone).name).toBe('Zone 0');
  });

  it('takes a change built on one the server lost once the client answers its step 1, keeping the connection', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const fac = await connect(w.id, facilitator);
    await until(() => fac.cards.has(card.id), 'card loaded');

    // A client whose last move a failed write lost reconnects, and moves again before answering.
    const mine = new Y.Doc();
    Y.applyUpdate(mine, Y.encodeStateAsUpdate(fac.doc));
    const serverState = Y.encodeStateVector(mine);
    mine.getMap('cards').set(card.id, { position: 0, x: 10, y: 10 });
    const afterLost = Y.encodeStateVector(mine);
    mine.getMap('cards').set(card.id, { position: 0, x: 20, y: 20 });
    const raw = await rawMember(t, w.id, facilitator.token);
    const stored = await storedUpdateCount(t, w.id);
    raw.send(updateMessage(Y.encodeStateAsUpdate(mine, afterLost)));
    raw.send(syncStep2UpdateMessage(Y.encodeStateAsUpdate(mine, serverState)));

    await until(async () => (await sqlPlacement(t, card.id)).x === 20, 'the move stored with the one it built on');
    await until(() => fac.cards.get(card.id)?.x === 20, 'the move relayed');
    expect(await storedUpdateCount(t, w.id)).toBe(stored + 1);
    expect(raw.ws.readyState).toBe(WebSocket.OPEN);
    raw.ws.close();
  });

  it('asks a client again for a change whose write found the workshop locked, and takes its next ones', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const watcher = await connect(w.id, facilitator);
    const mover = await connect(w.id, facilitator);
    const warned = vi.spyOn(console, 'warn');
    try {
      const held = await holdWriteLock(t, { table: 'workshops', column: 'id', value: w.id });
      try {
        mover.cards.set(card.id, { position: 0, x: 10, y: 10 });
        await until(
          () => warned.mock.calls.some(([line]) => String(line).includes('could not store a change')),
          'the write giving up on the lock',
        );
      } finally {
        await held.release();
      }
    } finally {
      warned.mockRestore();
    }
    // The next move builds on the lost one, which the client's answer brings along.
    mover.cards.set(card.id, { position: 0, x: 20, y: 20 });
    await until(async () => (await sqlPlacement(t, card.id)).x === 20, 'the next move stored');
    await until(() => watcher.cards.get(card.id)?.x === 20, 'the next move relayed');
    expect(mover.closes).toEqual([]);
  });

  it('refuses keyless items under the roots, also in an archived workshop, storing nothing', async () => {
    const w = await workshop();
    await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await connect(w.id, facilitator);
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    const stored = await storedUpdateCount(t, w.id);

    for (const root of ['cards', 'zones']) {
      const forge = new Y.Doc();
      forge.getArray(root).insert(0, ['x'.repeat(200_000)]);
      const raw = await rawMember(t, w.id, participant.token);
      raw.send(updateMessage(Y.encodeStateAsUpdate(forge)));
      expect((await raw.closed).code).toBe(4400);
    }
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect(await storedBytes(w.id)).toBeLessThan(10_000);
  });

  it('refuses oversized updates before applying them', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await connect(w.id, facilitator);
    const stored = await storedUpdateCount(t, w.id);
    const forge = new Y.Doc();
    forge.getMap('cards').set(card.id, { position: 0, x: 1, y: 1, padding: 'x'.repeat(600_000) });
    const raw = await rawMember(t, w.id, facilitator.token);
    raw.send(updateMessage(Y.encodeStateAsUpdate(forge)));
    expect((await raw.closed).code).toBe(4400);
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect((await sqlPlacement(t, card.id)).x).toBe(null);
  });

  it("does not let a member overwrite or remove someone else's cursor", async () => {
    const w = await workshop();
    const victim = await connect(w.id, participant);
    const watcher = await connect(w.id, facilitator);
    victim.provider.awareness.setLocalStateField('cursor', { x: 1, y: 1 });
    const id = victim.doc.clientID;
    await until(() => watcher.provider.awareness.getStates().get(id)?.cursor?.x === 1, 'victim cursor seen');

    const raw = await rawMember(t, w.id, facilitator.token);
    const clock = victim.provider.awareness.meta.get(id)!.clock;
    raw.send(awarenessEntry(id, clock + 1, { cursor: { x: 99, y: 99 } }));
    raw.send(awarenessEntry(id, clock + 2, null));
    raw.send(awarenessEntry(424242, 1, { cursor: { x: 5, y: 5 } }));
    await until(
      () => watcher.provider.awareness.getStates().get(424242)?.cursor?.x === 5,
      "the raw client's own cursor",
    );
    expect(watcher.provider.awareness.getStates().get(id)?.cursor).toEqual({ x: 1, y: 1 });
    raw.ws.close();
    await until(() => !watcher.provider.awareness.getStates().has(424242), 'its cursor leaves with it');
    expect(watcher.provider.awareness.getStates().get(id)?.cursor).toEqual({ x: 1, y: 1 });
  });
});

async function storedBytes(workshopId: string): Promise<number> {
  const { yjsDocuments, yjsUpdates } = t.tables;
  const updates = await t.db
    .select({ bytes: yjsUpdates.update })
    .from(yjsUpdates)
    .where(eq(yjsUpdates.workshopId, workshopId));
  const snapshot = await t.db
    .select({ bytes: yjsDocuments.state })
    .from(yjsDocuments)
    .where(eq(yjsDocuments.workshopId, workshopId));
  return [...updates, ...snapshot].reduce((sum, row) => sum + row.bytes.byteLength, 0);
}

describe('access ending while connected', () => {
  it('closes the sync connection at logout (4401)', async () => {
    const user = await createUser(t, 'Leaving');
    const w = await seedWorkshop(t, user);
    const client = await connect(w.id, user);
    expect((await t.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(204);
    await until(() => client.closes.some((c) => c.code === 4401), 'closed with 4401');
  });

  it('closes the connections of a user whose membership is gone when access changes (4404)', async () => {
    const w = await workshop();
    const client = await connect(w.id, participant);
    await t.write(async (tx, { workshopMembers }) =>
      tx
        .delete(workshopMembers)
        .where(and(eq(workshopMembers.workshopId, w.id), eq(workshopMembers.userId, participant.id))),
    );
    t.deps.bus.emit('access-changed', { userId: participant.id });
    await until(() => client.closes.some((c) => c.code === 4404), 'closed with 4404');
  });

  it('checks a token shared by several connections once, and closes only the connection whose membership went', async () => {
    const user = await createUser(t, 'Many tabs');
    const [kept, lost, other] = [
      await seedWorkshopWith(t, facilitator, [user]),
      await seedWorkshopWith(t, facilitator, [user]),
      await seedWorkshopWith(t, facilitator, [user]),
    ];
    const clients = [await connect(kept.id, user), await connect(lost.id, user), await connect(other.id, user)];
    await t.write(async (tx, { workshopMembers }) =>
      tx
        .delete(workshopMembers)
        .where(and(eq(workshopMembers.workshopId, lost.id), eq(workshopMembers.userId, user.id))),
    );
    const asked: string[] = [];
    const isAlive = vi.spyOn(t.deps.auth, 'isAlive').mockImplementation(async (tokenHash) => {
      asked.push(tokenHash);
      return true;
    });
    try {
      t.deps.bus.emit('access-changed', { userId: user.id });
      await until(
        () => clients[1]!.closes.some((c) => c.code === 4404),
        'the connection to the workshop left closed with 4404',
      );
    } finally {
      isAlive.mockRestore();
    }
    expect(asked).toHaveLength(1);
    expect(clients[0]!.closes).toEqual([]);
    expect(clients[2]!.closes).toEqual([]);
  });
});

describe('two instances over one SQLite file, messages between them lost', () => {
  let b: TestServer;
  beforeAll(async () => {
    b = await startTestServer({}, { shareDatabaseOf: t });
  });
  afterAll(async () => {
    await b?.close();
  });

  it("a position-only change on B keeps the x and y A stored, though B's copy never heard of them", async () => {
    const w = await workshop();
    const first = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const second = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    expect((await engineOf(b).cardPlacements(w.id)).get(first.id)).toEqual({ position: 0, x: null, y: null });
    const onA = await connect(w.id, facilitator);
    onA.cards.set(first.id, { position: 0, x: 100, y: 200 });
    await until(async () => (await sqlPlacement(t, first.id)).x === 100, 'move stored on A');

    const moved = await b.request('PUT', `/v1/workshops/${w.id}/cards/${second.id}`, {
      token: facilitator.token,
      body: { position: 0 },
    });
    expect(moved.status).toBe(200);
    expect(await sqlPlacement(t, first.id)).toEqual({ position: 1, x: 100, y: 200 });
    expect((await engineOf(b).cardPlacements(w.id)).get(first.id)).toEqual({ position: 1, x: 100, y: 200 });
  });

  it('a token revoked on B stops writes of a connection on A', async () => {
    const user = await createUser(t, 'Elsewhere');
    const w = await seedWorkshop(t, user);
    const card = await seedCard(t, w.id, user, { type: 'cluster' });
    const onA = await connect(w.id, user);
    expect((await b.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(204);
    onA.cards.set(card.id, { position: 0, x: 5, y: 5 });
    await until(() => onA.closes.some((c) => c.code === 4401), 'closed with 4401');
    expect((await sqlPlacement(t, card.id)).x).toBe(null);
  });
});

describe('shutdown', () => {
  it('answers sync upgrades with 503 while closing, and closes after a malformed message', async () => {
    const s = await startTestServer();
    try {
      const owner = await createUser(s, 'Owner');
      const w = await seedWorkshop(s, owner);
      const raw = await rawMember(s, w.id, owner.token);
      raw.send(new Uint8Array([0, 0, 4, 0xff, 0xff, 0xff, 0x0f]));
      expect((await raw.closed).code).toBe(4400);
      const lingering = await rawMember(s, w.id, owner.token);
      await Promise.race([
        s.deps.collab.close(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('collab.close() did not resolve')), 3_000)),
      ]);
      expect((await lingering.closed).code).toBe(1001);

      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/v1/sync/${w.id}?token=${owner.token}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => reject(new Error('upgrade accepted while closing')));
        ws.on('error', () => {});
      });
      expect(status).toBe(503);
    } finally {
      await s.close();
    }
  });
});
