import { isDeepStrictEqual } from 'node:util';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { openCanvas, type WorkshopCanvas } from '../client-sdk/src/canvas';
import { DocumentStore } from '../src/collab/store';
import type { ZoneState } from '../src/domain/canvas';
import { disposedAfterEach, useServer, useUsers } from './helpers/cast';
import { engineOf, seedCanvas, sqlZone, storedUpdateCount } from './helpers/collab';
import { eventLog, seedCard, seedMember, seedWorkshop, type TestUser } from './helpers/factories';
import { quietFor, until } from './helpers/wait';

/*
 * A cluster is linked by one zone at most (docs/realtime.md#what-a-document-holds). Two
 * facilitators dropping one cluster into two zones at the same moment each let go only of the
 * links they saw; the server's repair keeps one, and every canvas, the server's document and SQL
 * end on it alike. The zones of `seedCanvas` lie side by side: x 0–6 and 6–12, y 0–4.
 */

const t = useServer();
const [fay, fred] = useUsers(t, 'Fay', 'Fred');
const track = disposedAfterEach<WorkshopCanvas>((canvas) => canvas.destroy());

/** A canvas of `user`, synced; pass the `doc` of one that went offline to bring it back. */
async function online(user: TestUser, workshopId: string, doc?: Y.Doc): Promise<WorkshopCanvas> {
  const options = { WebSocket, maxBackoffTime: 200, doc };
  const canvas = track(openCanvas({ baseUrl: t.url, token: user.token }, workshopId, options));
  await canvas.synced;
  return canvas;
}

/**
 * Two facilitators, a canvas of two zones and one cluster nobody placed yet; `canvases` opens
 * theirs, waiting until each holds the zones and the cluster (a first sync may come from what is
 * stored, before the document is loaded and brought in line with SQL).
 */
async function scene() {
  const w = await seedWorkshop(t, fay);
  await seedMember(t, w.id, fred, 'facilitator');
  const [left, right] = await seedCanvas(t, w.id, 2);
  const cluster = await seedCard(t, w.id, fay, { type: 'cluster' });
  const canvases = async () => {
    const opened = await Promise.all([online(fay, w.id), online(fred, w.id)]);
    const ready = (canvas: WorkshopCanvas) =>
      Object.keys(canvas.zones()).length === 2 && !!canvas.placement(cluster.id);
    await until(() => opened.every(ready), 'both canvases hold the zones and the cluster');
    return opened;
  };
  return { w, cluster, left: left!, right: right!, canvases };
}

/**
 * A drop as the console's Canvas tab writes it (web/console/workshop/canvas/layout.ts): one
 * transaction placing the cluster, linking the zone and unlinking the other zones it sees linked.
 */
function drop(canvas: WorkshopCanvas, clusterId: string, zoneId: string, x: number) {
  const seen = canvas.zones();
  canvas.doc.transact(() => {
    canvas.moveCard(clusterId, { x, y: 1 });
    for (const [id, zone] of Object.entries(seen))
      if (id !== zoneId && zone.cluster_id === clusterId) canvas.updateZone(id, { cluster_id: null });
    canvas.updateZone(zoneId, { cluster_id: clusterId });
  });
}

/** The zones linked to a cluster, by id. */
const linksTo = (zones: Iterable<[string, Pick<ZoneState, 'cluster_id'>]>, clusterId: string) =>
  [...zones].filter(([, zone]) => zone.cluster_id === clusterId).map(([id]) => id);
const canvasLinks = (canvas: WorkshopCanvas, clusterId: string) => linksTo(Object.entries(canvas.zones()), clusterId);
const alike = (a: WorkshopCanvas, b: WorkshopCanvas) =>
  isDeepStrictEqual(a.zones(), b.zones()) && isDeepStrictEqual(a.placements(), b.placements());

/** Waits until both canvases hold the same state with one zone linked to the cluster, and returns that zone. */
async function agreedLink(a: WorkshopCanvas, b: WorkshopCanvas, clusterId: string): Promise<string> {
  await until(
    () => alike(a, b) && canvasLinks(a, clusterId).length === 1,
    'both canvases hold the same state, the cluster linked by one zone',
  );
  return canvasLinks(a, clusterId)[0]!;
}

/** The server's document and SQL link the cluster to `kept` only. */
async function expectStoredLink(workshopId: string, clusterId: string, zones: string[], kept: string) {
  expect(linksTo((await t.deps.collab.zonesIfLoaded(workshopId))!, clusterId)).toEqual([kept]);
  for (const zone of zones)
    expect((await sqlZone(t, zone)).cluster_id, `SQL's link of ${zone}`).toBe(zone === kept ? clusterId : null);
}

describe('a cluster dropped into two zones at the same moment', () => {
  it('is not shown in both zones once the two facilitators who dropped it offline reconnect', async () => {
    const { w, cluster, left, right, canvases } = await scene();
    const [fays, freds] = await canvases();
    // Offline, each drops the cluster into a zone of its own, unaware of the other's drop.
    fays.destroy();
    freds.destroy();
    drop(fays, cluster.id, left, 2);
    drop(freds, cluster.id, right, 8);
    const [fayBack, fredBack] = await Promise.all([online(fay, w.id, fays.doc), online(fred, w.id, freds.doc)]);

    const kept = await agreedLink(fayBack, fredBack, cluster.id);
    // The link follows the placement the merge kept: the cluster is drawn in the zone linked to it.
    expect(kept).toBe(fayBack.placement(cluster.id)!.x! < 6 ? left : right);
    await expectStoredLink(w.id, cluster.id, [left, right], kept);
    // Screens that follow the log end on the same links.
    const logged = new Map<string, Pick<ZoneState, 'cluster_id'>>();
    for (const event of await eventLog(t, w.id)) {
      const { zone } = event.change as { zone?: { id: string; cluster_id: string | null } };
      if (event.action === 'updateZone' && zone) logged.set(zone.id, zone);
    }
    expect(linksTo(logged, cluster.id)).toEqual([kept]);

    // The repaired state asks for no repair of its own.
    const stored = await storedUpdateCount(t, w.id);
    await quietFor(150, 'no further repair is stored');
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
  });

  it('is not left in two zones when nobody placed it: the zone linked last keeps it', async () => {
    const { w, cluster, left, right, canvases } = await scene();
    const [fays, freds] = await canvases();
    fays.destroy();
    freds.destroy();
    fays.updateZone(left, { cluster_id: cluster.id });
    freds.updateZone(right, { cluster_id: cluster.id });

    const fayBack = await online(fay, w.id, fays.doc);
    await until(async () => (await sqlZone(t, left)).cluster_id === cluster.id, "Fay's link is stored");
    const fredBack = await online(fred, w.id, freds.doc);
    expect(await agreedLink(fayBack, fredBack, cluster.id)).toBe(right);
    await expectStoredLink(w.id, cluster.id, [left, right], right);
  });

  it('is shown in one zone again when a document stored with both links loads', async () => {
    const { w, cluster, left, right, canvases } = await scene();
    const [fays, freds] = await canvases();
    freds.destroy();
    drop(fays, cluster.id, left, 2);
    await until(async () => (await sqlZone(t, left)).cluster_id === cluster.id, 'the drop is stored');
    fays.destroy();
    await engineOf(t).unloadNow(w.id, { compact: false });

    // An older version stored a second link without repairing it, in the document and in SQL.
    const stale = new Y.Doc();
    Y.applyUpdate(stale, Y.encodeStateAsUpdate(fays.doc));
    const before = Y.encodeStateVector(stale);
    const zones = stale.getMap<ZoneState>('zones');
    zones.set(right, { ...zones.get(right)!, cluster_id: cluster.id });
    await t.write(async (tx, tables) => {
      await new DocumentStore(t.deps.database).append(tx, w.id, Y.encodeStateAsUpdate(stale, before));
      await tx.update(tables.zones).set({ clusterId: cluster.id }).where(eq(tables.zones.id, right));
    });

    // Its first sync may come from what is stored, before the document is loaded and repaired.
    const fredsCanvas = await online(fred, w.id);
    await until(() => canvasLinks(fredsCanvas, cluster.id).length === 1, 'the canvas shows one link');
    expect(canvasLinks(fredsCanvas, cluster.id)).toEqual([left]);
    await expectStoredLink(w.id, cluster.id, [left, right], left);
    const unlinked = (await eventLog(t, w.id)).at(-1)!;
    expect([unlinked.action, unlinked.userId, unlinked.change]).toMatchObject([
      'updateZone',
      null,
      { zone: { id: right, cluster_id: null }, changes: { cluster_id: [cluster.id, null] } },
    ]);
  });
});
