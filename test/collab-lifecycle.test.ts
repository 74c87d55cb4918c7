import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { engineOf, sqlPlacement, storedUpdateCount, syncedDoc } from './helpers/collab';
import { quietFor, until } from './helpers/wait';
import { createUser, seedCard, seedWorkshop, inTurn } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';
import { startTestServer, type TestServer } from './helpers/server';
import { write } from '../src/db/write';

const t = useServer();
const [user] = useUsers(t, 'Lifecycle');

async function snapshotRow(server: TestServer, workshopId: string): Promise<{ bytes: number } | undefined> {
  const { yjsDocuments } = server.tables;
  const [row] = await server.db
    .select({ state: yjsDocuments.state })
    .from(yjsDocuments)
    .where(eq(yjsDocuments.workshopId, workshopId));
  return row && { bytes: row.state.byteLength };
}

describe('loading and unloading', () => {
  it('unloads a document a short while after its last client left, compacting it', async () => {
    const engine = engineOf(t);
    engine.options.graceMs = 50;
    const w = await seedWorkshop(t, user);
    const card = await seedCard(t, w.id, user, { type: 'cluster' });
    const [a, b] = await Promise.all([syncedDoc(t, w.id, user.token), syncedDoc(t, w.id, user.token)]);
    a.cards.set(card.id, { position: 0, x: 1, y: 1 });
    await until(() => b.cards.get(card.id)?.x === 1, 'relayed');
    a.destroy();
    // Past the 50 ms grace the document must still be loaded, since b is still connected.
    await quietFor(150, 'no unload while a client remains');
    expect(engine.loadedDocuments()).toContain(w.id);
    b.destroy();
    await until(() => !engine.loadedDocuments().includes(w.id), 'unloaded');
    expect(await storedUpdateCount(t, w.id)).toBe(0);
    expect((await snapshotRow(t, w.id))!.bytes).toBeGreaterThan(0);
    engine.options.graceMs = 5_000;
  });

  it('unloads a document used only through the service after a while', async () => {
    const engine = engineOf(t);
    engine.options.idleMs = 50;
    const w = await seedWorkshop(t, user);
    const card = await seedCard(t, w.id, user, { type: 'cluster' });
    expect((await engine.cardPlacements(w.id)).get(card.id)).toEqual({ position: 0, x: null, y: null });
    expect(engine.loadedDocuments()).toContain(w.id);
    await until(() => !engine.loadedDocuments().includes(w.id), 'unloaded after idling');
    engine.options.idleMs = 60_000;
    // A workshop that does not exist has no document, and nothing is stored for it.
    expect((await engine.cardPlacements('no-such-workshop')).size).toBe(0);
    await write(t.deps, (tx, changes) =>
      t.deps.collab.placeCards({ tx, changes }, 'no-such-workshop', { placements: { x: { position: 0 } } }),
    );
    expect(engine.loadedDocuments()).not.toContain('no-such-workshop');
  });
});

describe('compaction', () => {
  it('keeps the stored updates bounded, and the compacted document loads the same', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, user);
    const cards = await inTurn(20, () => seedCard(t, w.id, user, { type: 'cluster' }));
    const client = await syncedDoc(t, w.id, user.token);
    let moves = 0;
    for (let batch = 0; batch < 7; batch++) {
      for (let i = 0; i < 50; i++) {
        const card = cards[moves % cards.length]!;
        client.cards.set(card.id, { ...client.cards.get(card.id), x: moves, y: -moves });
        moves += 1;
      }
      const last = cards[(moves - 1) % cards.length]!;
      await until(async () => (await sqlPlacement(t, last.id)).x === moves - 1, `batch ${batch} stored`);
      expect(await storedUpdateCount(t, w.id)).toBeLessThanOrEqual(engine.options.compactAfter + 1);
    }
    expect(await snapshotRow(t, w.id)).toBeDefined();
    const before = JSON.stringify(client.cards.toJSON());
    client.destroy();

    await engine.unloadNow(w.id, { compact: false });
    expect(engine.loadedDocuments()).not.toContain(w.id);
    const reloaded = await syncedDoc(t, w.id, user.token);
    expect(JSON.stringify(reloaded.cards.toJSON())).toBe(before);
    reloaded.destroy();
  });
});

describe('restart', () => {
  it('brings the document back from SQLite in a new server on the same file', async () => {
    const first = await startTestServer();
    const owner = await createUser(first, 'Owner');
    const w = await seedWorkshop(first, owner);
    const a = await seedCard(first, w.id, owner, { type: 'cluster' });
    const b = await seedCard(first, w.id, owner, { type: 'cluster' });
    const client = await syncedDoc(first, w.id, owner.token);
    client.cards.set(a.id, { position: 1, x: 40, y: 50 });
    await until(() => client.cards.get(b.id)?.position === 0, 'renumbered');
    client.disconnect();
    // Stopping the server compacts what it holds.
    await first.server.close();
    await first.deps.database.close();
    // The client keeps working while the server is away.
    client.cards.set(b.id, { position: 0, x: 7, y: 8 });

    const second = await startTestServer({}, { shareDatabaseOf: first });
    try {
      expect(await storedUpdateCount(second, w.id)).toBe(0);
      expect((await snapshotRow(second, w.id))!.bytes).toBeGreaterThan(0);
      const fresh = await syncedDoc(second, w.id, owner.token);
      expect(fresh.cards.toJSON()).toEqual({
        [a.id]: { position: 1, x: 40, y: 50 },
        [b.id]: { position: 0, x: null, y: null },
      });

      const back = await syncedDoc(second, w.id, owner.token, client.doc);
      await until(() => fresh.cards.get(b.id)?.x === 7, 'offline move arrives');
      expect(await sqlPlacement(second, b.id)).toEqual({ position: 0, x: 7, y: 8 });
      expect(back.cards.toJSON()).toEqual(fresh.cards.toJSON());
      expect(back.cards.size).toBe(2);
      fresh.destroy();
      back.destroy();
    } finally {
      await second.close();
      rmSync(dirname(first.deps.config.databasePath), { recursive: true, force: true });
    }
  });
});
