import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { relinkZones } from '../src/modules/canvas/zones';
import { write, writeWorkshop } from '../src/db/write';
import type { CanvasOutput, ZoneOutput } from '../src/domain/canvas';
import type { CardOutput } from '../src/domain/cards';
import { eventLog, inTurn, seedCard, seedWorkshop, seedWorkshopWith } from './helpers/factories';
import { seedCanvas, syncedDoc } from './helpers/collab';
import { until } from './helpers/wait';
import { useServer, useUsers } from './helpers/cast';

/*
 * Zone links over REST: a cluster is linked by one zone at most (docs/api.md#canvas), as the
 * document's repair keeps it for its clients (`collab-zone-links.test.ts`); zones follow the
 * clusters they link to when those are deleted or merged.
 */

const t = useServer();
const [ada, bob] = useUsers(t, 'Ada', 'Bob');

const zonePath = (workshopId: string, zoneId: string) => `/v1/workshops/${workshopId}/canvas/zones/${zoneId}`;
const link = (workshopId: string, zoneId: string, clusterId: string | null) =>
  t.request('PUT', zonePath(workshopId, zoneId), { token: ada.token, body: { cluster_id: clusterId } });

/** Each zone's cluster as REST, SQL and the document hold it, in the canvas's order. */
async function links(workshopId: string) {
  const { zones } = t.tables;
  const rows = await t.db.select().from(zones).where(eq(zones.workshopId, workshopId)).orderBy(asc(zones.position));
  const document = await writeWorkshop(t.deps, workshopId, (tx, changes) =>
    t.deps.collab.zones({ tx, changes }, workshopId),
  );
  const canvas = (await t.request<CanvasOutput>('GET', `/v1/workshops/${workshopId}/canvas`, { token: bob.token }))
    .body;
  return {
    rest: canvas.zones.map((zone) => zone.cluster_id),
    sql: rows.map((row) => row.clusterId),
    document: rows.map((row) => document.get(row.id)!.cluster_id),
  };
}

const everywhere = (...clusterIds: Array<string | null>) => ({
  rest: clusterIds,
  sql: clusterIds,
  document: clusterIds,
});

/** A workshop with Bob as participant, a canvas of two zones, and two clusters, each linked to one zone. */
async function linkedZones() {
  const w = await seedWorkshopWith(t, ada, [bob]);
  const [zone, other] = await seedCanvas(t, w.id, 2);
  const [cluster, second] = await inTurn(2, () => seedCard(t, w.id, ada, { type: 'cluster' }));
  expect((await link(w.id, zone!, cluster!.id)).status).toBe(204);
  expect((await link(w.id, other!, second!.id)).status).toBe(204);
  return { w, zone: zone!, other: other!, cluster: cluster!, second: second! };
}

const zoneChanges = async (workshopId: string, since: number) =>
  (await eventLog(t, workshopId)).slice(since).map((e) => [e.action, (e.change as { changes?: unknown }).changes]);

describe('a cluster is linked by one zone at most', () => {
  it('linking a second zone to a cluster does not leave it shown in both: the first zone lets go', async () => {
    const { w, zone, other, cluster, second } = await linkedZones();
    const client = await syncedDoc(t, w.id, bob.token);
    try {
      const before = (await eventLog(t, w.id)).length;
      expect((await link(w.id, other, cluster.id)).status).toBe(204);
      expect(await links(w.id)).toEqual(everywhere(null, cluster.id));
      expect(await zoneChanges(w.id, before)).toEqual([
        ['updateZone', { cluster_id: [cluster.id, null] }],
        ['updateZone', { cluster_id: [second.id, cluster.id] }],
      ]);
      await until(
        () => client.zones.get(zone)?.cluster_id === null && client.zones.get(other)?.cluster_id === cluster.id,
        'a connected client sees the link move',
      );
      // Linking it again where it is changes nothing.
      expect((await link(w.id, other, cluster.id)).status).toBe(204);
      expect(await eventLog(t, w.id)).toHaveLength(before + 2);
    } finally {
      client.destroy();
    }
  });

  it('merging two clusters that both had zones does not show the merged one in two zones: the first listed keeps its zone', async () => {
    const { w, cluster, second } = await linkedZones();
    const merged = await t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards/merge`, {
      token: ada.token,
      body: { cards_id: [second.id, cluster.id] },
    });
    expect(merged.status, JSON.stringify(merged.body)).toBe(201);
    expect(await links(w.id)).toEqual(everywhere(null, merged.body.id));
    const zones = (await eventLog(t, w.id)).filter((e) => e.action === 'updateZone').slice(-2);
    expect(zones.map((e) => (e.change as { zone: ZoneOutput }).zone.cluster_id)).toEqual([null, merged.body.id]);
  });
});

describe('zones follow the clusters they link to', () => {
  it('unlinks zones whose cluster is deleted, in the document and SQL, logging updateZone', async () => {
    const { w, cluster, second } = await linkedZones();
    const before = (await eventLog(t, w.id)).length;
    await write(t.deps, async (tx, changes) => {
      const { cards } = t.tables;
      await tx.delete(cards).where(eq(cards.id, cluster.id));
      await tx.delete(cards).where(eq(cards.id, second.id));
      await relinkZones(t.deps, { tx, changes }, { workshopId: w.id, caller: ada, from: [cluster.id, second.id] });
    });
    expect(await links(w.id)).toEqual(everywhere(null, null));
    expect(await zoneChanges(w.id, before)).toEqual([
      ['updateZone', { cluster_id: [cluster.id, null] }],
      ['updateZone', { cluster_id: [second.id, null] }],
    ]);
  });

  it('moves zone links to the cluster a merge made', async () => {
    const { w, cluster, second } = await linkedZones();
    const merged = await seedCard(t, w.id, ada, { type: 'cluster' });
    await write(t.deps, (tx, changes) =>
      relinkZones(t.deps, { tx, changes }, { workshopId: w.id, caller: ada, from: [cluster.id], to: merged.id }),
    );
    expect(await links(w.id)).toEqual(everywhere(merged.id, second.id));
  });

  it('leaves the document alone when the deleting write fails', async () => {
    const { w, cluster, second } = await linkedZones();
    const before = (await eventLog(t, w.id)).length;
    await expect(
      write(t.deps, async (tx, changes) => {
        await relinkZones(t.deps, { tx, changes }, { workshopId: w.id, caller: ada, from: [cluster.id] });
        throw new Error('the deletion failed');
      }),
    ).rejects.toThrow('the deletion failed');
    expect(await links(w.id)).toEqual(everywhere(cluster.id, second.id));
    expect(await eventLog(t, w.id)).toHaveLength(before);
  });

  it('does nothing for a workshop without a canvas, or clusters no zone links to', async () => {
    const w = await seedWorkshop(t, ada);
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
    await write(t.deps, (tx, changes) =>
      relinkZones(t.deps, { tx, changes }, { workshopId: w.id, caller: ada, from: [cluster.id] }),
    );
    const { w: other } = await linkedZones();
    const before = (await eventLog(t, other.id)).length;
    await write(t.deps, (tx, changes) =>
      relinkZones(t.deps, { tx, changes }, { workshopId: other.id, caller: ada, from: [cluster.id] }),
    );
    expect(await eventLog(t, w.id)).toEqual([]);
    expect(await eventLog(t, other.id)).toHaveLength(before);
  });
});
