import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CanvasOutput, ZoneOutput } from '../src/domain/canvas';
import type { CardOutput } from '../src/domain/cards';
import { writeWorkshop } from '../src/db/write';
import { useDocs, useServer, useUsers } from './helpers/cast';
import { engineOf, sqlZone, syncedDoc } from './helpers/collab';
import { eventLog, seedWorkshop, type TestUser } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';
import { until } from './helpers/wait';

const t = useServer();
const [fay] = useUsers(t, 'Fay');
const docs = useDocs(t);

const BOARD = {
  name: 'Board',
  background: { cols: 20, rows: 10 },
  zones: [
    { name: 'Left', x: 0, y: 0, rows: 5, cols: 10 },
    { name: 'Right', x: 10, y: 0, rows: 5, cols: 10 },
  ],
};

async function canvasWithZones(workshopId: string, user: TestUser) {
  const res = await t.request<CanvasOutput>('POST', `/v1/workshops/${workshopId}/canvas`, {
    token: user.token,
    body: BOARD,
  });
  expect(res.status).toBe(201);
  return res.body.zones;
}

async function readCanvas(server: TestServer, workshopId: string, user: TestUser) {
  const res = await server.request<CanvasOutput>('GET', `/v1/workshops/${workshopId}/canvas`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

describe('REST reads of zones', () => {
  it('are answered from the SQL copy when the document is not loaded, with the values the document holds', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, fay);
    const [left, right] = await canvasWithZones(w.id, fay);
    const client = await docs.synced(w.id, fay);
    client.zones.set(left!.id, { ...client.zones.get(left!.id), name: 'Moved', x: 3 });
    await until(async () => (await sqlZone(t, left!.id)).x === 3, 'zone edit stored');
    client.disconnect();
    await engine.unloadNow(w.id, { compact: true });

    const canvas = await readCanvas(t, w.id, fay);
    const zone = await t.request<ZoneOutput>('GET', `/v1/workshops/canvas/zones/${left!.id}`, { token: fay.token });
    expect(engine.loadedDocuments()).not.toContain(w.id);
    const moved = { id: left!.id, name: 'Moved', x: 3, y: 0, rows: 5, cols: 10, cluster_id: null };
    expect(canvas.zones).toEqual([moved, right]);
    expect(zone.body).toEqual(moved);

    // Loading the document shows the same values.
    const { id, ...values } = moved;
    expect(
      (await writeWorkshop(t.deps, w.id, (tx, changes) => t.deps.collab.zones({ tx, changes }, w.id))).get(id),
    ).toEqual(values);
    expect(await readCanvas(t, w.id, fay)).toEqual(canvas);
  });

  it('follow what another instance stored, whether this one holds the document loaded or not', async () => {
    const engine = engineOf(t);
    // No Redis between the two: nothing is relayed, everything goes through SQLite.
    const other = await startTestServer({}, { shareDatabaseOf: t });
    try {
      const w = await seedWorkshop(t, fay);
      const [left] = await canvasWithZones(w.id, fay);
      const here = await docs.synced(w.id, fay);
      const there = await syncedDoc(other, w.id, fay.token);
      there.zones.set(left!.id, { ...there.zones.get(left!.id), y: 4 });
      await until(async () => (await sqlZone(t, left!.id)).y === 4, 'edit stored by the other instance');
      expect(here.zones.get(left!.id).y).toBe(0);

      expect(engine.loadedDocuments()).toContain(w.id);
      expect((await readCanvas(t, w.id, fay)).zones[0]!.y).toBe(4);
      here.disconnect();
      await engine.unloadNow(w.id, { compact: false });
      expect((await readCanvas(t, w.id, fay)).zones[0]!.y).toBe(4);
      expect(engine.loadedDocuments()).not.toContain(w.id);
      there.destroy();
    } finally {
      await other.close();
    }
  });
});

describe('a document loading over a SQL copy that parted from it', () => {
  it('logs what it puts back, so cached card lists and live screens follow', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, fay);
    const create = (title: string) =>
      t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, {
        token: fay.token,
        body: { type: 'cluster', title },
      });
    const [first, second] = [(await create('First')).body, (await create('Second')).body];
    await engine.unloadNow(w.id, { compact: true });
    // A copy an older version of the service left behind (it wrote SQL after the commit).
    await t.write(async (tx, { cards }) => {
      const setPosition = (position: number, id: string) => tx.update(cards).set({ position }).where(eq(cards.id, id));
      await setPosition(1, first.id);
      await setPosition(0, second.id);
    });
    const list = async () =>
      (await t.request<CardOutput[]>('GET', `/v1/workshops/${w.id}/cards`, { token: fay.token })).body.map(
        (card) => card.title,
      );
    expect(await list()).toEqual(['Second', 'First']);

    // Loading reconciles: the document, the truth, wins over the copy.
    expect((await engine.cardPlacements(w.id)).get(first.id)?.position).toBe(0);
    expect(await list()).toEqual(['First', 'Second']);
    const moved = (await eventLog(t, w.id)).at(-1)!;
    expect(moved.action).toBe('moveCards');
    expect(moved.change).toEqual({
      placements: { [first.id]: { position: 0, x: null, y: null }, [second.id]: { position: 1, x: null, y: null } },
    });
  });
});
