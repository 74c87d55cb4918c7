import { describe, expect, it, vi } from 'vitest';
import { write } from '../src/db/write';
import { useDocs, useRedis, useUsers, useInstances } from './helpers/cast';
import { engineOf, sqlPlacement } from './helpers/collab';
import { seedCard, seedWorkshop } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { quietFor, until } from './helpers/wait';

describe.skipIf(!redisAvailable)('Yjs across two instances through Redis', () => {
  const redis = useRedis();
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url }));
  const [user] = useUsers(a, 'Both');
  const docs = useDocs(a);

  const connect = (server: TestServer, workshopId: string) => docs.synced(workshopId, user, server);

  /** Both instances hold the document and are subscribed to its channel. */
  async function bothLoaded(workshopId: string) {
    await until(
      () => engineOf(a).loadedDocuments().includes(workshopId) && engineOf(b).loadedDocuments().includes(workshopId),
      'loaded on both',
    );
    // Redis confirms a subscription asynchronously: wait until it counts both instances.
    await until(
      async () => (await redis.subscribers(`collab:${workshopId}`)) === 2,
      'both instances subscribed in Redis',
    );
  }

  it('relays moves and awareness made by a client on B to a client on A, once stored', async () => {
    const w = await seedWorkshop(a, user);
    const card = await seedCard(a, w.id, user, { type: 'cluster' });
    const onA = await connect(a, w.id);
    const onB = await connect(b, w.id);
    await bothLoaded(w.id);

    onB.cards.set(card.id, { position: 0, x: 11, y: 12 });
    await until(() => onA.cards.get(card.id)?.x === 11, 'move reaches A');
    expect(await sqlPlacement(a, card.id)).toEqual({ position: 0, x: 11, y: 12 });

    onB.provider.awareness.setLocalStateField('cursor', { x: 3, y: 4 });
    await until(() => onA.provider.awareness.getStates().get(onB.doc.clientID)?.cursor?.x === 3, 'cursor reaches A');
    onB.destroy();
    await until(() => !onA.provider.awareness.getStates().has(onB.doc.clientID), 'cursor leaves with its client');

    // A change the service makes on A reaches B's clients too.
    const again = await connect(b, w.id);
    await write(a.deps, (tx, changes) =>
      a.deps.collab.placeCards({ tx, changes }, w.id, { placements: { [card.id]: { x: 500 } } }),
    );
    await until(() => again.cards.get(card.id)?.x === 500, 'service change reaches B');
  });

  it('shows a REST move made on B to a client on A, and closes the clients on A when B deletes the workshop', async () => {
    const w = await seedWorkshop(a, user);
    const [first, second] = [
      await seedCard(a, w.id, user, { type: 'cluster' }),
      await seedCard(a, w.id, user, { type: 'cluster' }),
    ];
    const onA = await connect(a, w.id);
    await connect(b, w.id);
    await bothLoaded(w.id);

    const moved = await b.request('PUT', `/v1/workshops/${w.id}/cards/${second.id}`, {
      token: user.token,
      body: { position: 0 },
    });
    expect(moved.status).toBe(200);
    await until(
      () => onA.cards.get(second.id)?.position === 0 && onA.cards.get(first.id)?.position === 1,
      'REST move on B reaches A',
    );

    expect((await b.request('DELETE', `/v1/workshops/${w.id}`, { token: user.token })).status).toBe(204);
    await until(() => onA.closes.some((c) => c.code === 4404), "A's client closed");
    await until(() => !engineOf(a).loadedDocuments().includes(w.id), 'A dropped the document');
  });

  it('syncs a client on B, which has not loaded the document, from what A stored, then relays both ways', async () => {
    const w = await seedWorkshop(a, user);
    const card = await seedCard(a, w.id, user, { type: 'cluster' });
    const onA = await connect(a, w.id);
    onA.cards.set(card.id, { position: 0, x: 1, y: 1 });
    await until(async () => (await sqlPlacement(a, card.id)).x === 1, 'move stored on A');
    expect(engineOf(b).loadedDocuments()).not.toContain(w.id);

    const onB = await connect(b, w.id);
    expect(onB.cards.get(card.id)).toEqual({ position: 0, x: 1, y: 1 });
    await bothLoaded(w.id);
    onA.cards.set(card.id, { position: 0, x: 2, y: 2 });
    await until(() => onB.cards.get(card.id)?.x === 2, 'move on A reaches B');
    onB.cards.set(card.id, { position: 0, x: 3, y: 3 });
    await until(() => onA.cards.get(card.id)?.x === 3, 'move on B reaches A');
    expect(await sqlPlacement(a, card.id)).toEqual({ position: 0, x: 3, y: 3 });
  });

  it('keeps serving local clients while Redis is down, and catches up from SQLite when it is back', async () => {
    const warn = vi.spyOn(console, 'warn');
    const w = await seedWorkshop(a, user);
    const [c1, c2] = [
      await seedCard(a, w.id, user, { type: 'cluster' }),
      await seedCard(a, w.id, user, { type: 'cluster' }),
    ];
    const [a1, a2, b1] = [await connect(a, w.id), await connect(a, w.id), await connect(b, w.id)];
    await bothLoaded(w.id);

    await redis.stop();
    a1.cards.set(c1.id, { position: 0, x: 1, y: 1 });
    await until(() => a2.cards.get(c1.id)?.x === 1, 'local relay on A without Redis');
    b1.cards.set(c2.id, { position: 1, x: 2, y: 2 });
    await until(async () => (await sqlPlacement(b, c2.id)).x === 2, 'B stores without Redis');
    expect((await sqlPlacement(a, c1.id)).x).toBe(1);
    // B read what A stored when it stored its own change; A hears of B's only through Redis.
    await until(() => b1.cards.get(c1.id)?.x === 1, "B caught up with A's stored move on its own write");
    // Nothing may reach A while Redis is down: give a relay the time it would take, then look.
    await quietFor(200, "no relay of B's move to A without Redis");
    expect(a1.cards.get(c2.id)?.x).toBe(null);

    await redis.start();
    await until(
      () => b1.cards.get(c1.id)?.x === 1 && a1.cards.get(c2.id)?.x === 2,
      'both caught up after Redis came back',
      15_000,
    );
    a2.cards.set(c2.id, { position: 1, x: 3, y: 3 });
    await until(() => b1.cards.get(c2.id)?.x === 3, 'live relay again');

    const outages = warn.mock.calls.filter(
      ([message]) => String(message).startsWith('[collab] Redis at') && String(message).includes('unreachable'),
    );
    // Logged once per instance for the outage, not once per retry.
    expect(outages.length).toBe(2);
    warn.mockRestore();
  });
});
