import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { write, writeWorkshop } from '../src/db/write';
import type { CanvasOutput, ZoneOutput } from '../src/domain/canvas';
import { eventLog, expectError, seedCard, seedMember, seedWorkshop, errorOf } from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { syncedDoc } from './helpers/collab';
import type { OpenApiDocument } from './helpers/openapi';
import { until } from './helpers/wait';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, eve] = useUsers(t, 'Ada', 'Bob', 'Eve');

type Zone = { id: string; name: string; x: number; y: number; rows: number; cols: number; cluster_id: string | null };

const canvasPath = (workshopId: string) => `/v1/workshops/${workshopId}/canvas`;
const zonePath = (workshopId: string, zoneId: string) => `/v1/workshops/${workshopId}/canvas/zones/${zoneId}`;
const anyZonePath = (zoneId: string) => `/v1/workshops/canvas/zones/${zoneId}`;

const CUSTOM = {
  name: 'Retro board',
  background: { cols: 20, rows: 10.5 },
  zones: [
    { name: 'Went well', x: 0, y: 0, rows: 10.5, cols: 10 },
    { name: 'To improve', x: 10, y: 0, rows: 10.5, cols: 10 },
  ],
  image: { cols: 20, rows: 10.5, url: 'https://images.example.test/board.png' },
};

/** A change of the server's own to the document's zones (`null` removes one). */
const placeZones = (workshopId: string, patch: Record<string, Omit<Zone, 'id'> | null>) =>
  write(t.deps, (tx, changes) => t.deps.collab.placeZones({ tx, changes }, workshopId, patch));
/** The document's zones of a workshop, as plain objects by id (loading it, inside a write of its own). */
const documentZones = async (workshopId: string) =>
  Object.fromEntries(
    await writeWorkshop(t.deps, workshopId, (tx, changes) => t.deps.collab.zones({ tx, changes }, workshopId)),
  );
const sqlZones = (workshopId: string) => {
  const { zones } = t.tables;
  return t.db.select().from(zones).where(eq(zones.workshopId, workshopId)).orderBy(asc(zones.position));
};

async function createCanvas(workshopId: string, body: unknown = CUSTOM) {
  const res = await t.request('POST', canvasPath(workshopId), { token: ada.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    id: string;
    name: string;
    background: { id: string; cols: number; rows: number };
    zones: Zone[];
    image: unknown;
  };
}

/** A workshop with a canvas, Bob as participant. */
async function workshopWithCanvas() {
  const w = await seedWorkshop(t, ada);
  await seedMember(t, w.id, bob);
  const canvas = await createCanvas(w.id);
  return { w, canvas };
}

describe('POST /v1/workshops/:workshop_id/canvas', () => {
  it('creates a canvas with new zone ids, puts the zones in the document and SQL, and logs addCanvas', async () => {
    const w = await seedWorkshop(t, ada);
    const canvas = await createCanvas(w.id);
    expect(canvas).toEqual({
      id: expect.any(String),
      name: 'Retro board',
      background: { id: expect.any(String), cols: 20, rows: 10.5 },
      zones: [
        { id: expect.any(String), name: 'Went well', x: 0, y: 0, rows: 10.5, cols: 10, cluster_id: null },
        { id: expect.any(String), name: 'To improve', x: 10, y: 0, rows: 10.5, cols: 10, cluster_id: null },
      ],
      image: { cols: 20, rows: 10.5, url: 'https://images.example.test/board.png' },
    });
    const [first, second] = canvas.zones;
    expect(first!.id).not.toBe(second!.id);
    expect(first!.id.length).toBeGreaterThanOrEqual(16);

    expect(await documentZones(w.id)).toEqual({
      [first!.id]: { name: 'Went well', x: 0, y: 0, rows: 10.5, cols: 10, cluster_id: null },
      [second!.id]: { name: 'To improve', x: 10, y: 0, rows: 10.5, cols: 10, cluster_id: null },
    });
    expect(
      (await sqlZones(w.id)).map((z) => [z.id, z.name, z.x, z.y, z.rows, z.cols, z.clusterId, z.position, z.canvasId]),
    ).toEqual([
      [first!.id, 'Went well', 0, 0, 10.5, 10, null, 0, canvas.id],
      [second!.id, 'To improve', 10, 0, 10.5, 10, null, 1, canvas.id],
    ]);
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.userId, e.change])).toEqual([
      ['addCanvas', ada.id, { canvas }],
    ]);

    const read = await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(canvas);
  });

  it('accepts a canvas without zones or image', async () => {
    const w = await seedWorkshop(t, ada);
    const canvas = await createCanvas(w.id, { name: 'Blank', background: { cols: 4, rows: 3 } });
    expect(canvas).toMatchObject({ name: 'Blank', background: { cols: 4, rows: 3 }, zones: [], image: null });
    expect(await documentZones(w.id)).toEqual({});
  });

  it('copies a predefined canvas, its slug naming the background', async () => {
    const w = await seedWorkshop(t, ada);
    const canvas = await createCanvas(w.id, { canvas_id: 'swot' });
    expect(canvas.name).toBe('SWOT analysis');
    expect(canvas.background).toEqual({ id: 'swot', cols: 12, rows: 8 });
    expect(canvas.image).toBeNull();
    expect(canvas.zones.map(({ id: _id, ...zone }) => zone)).toEqual([
      { name: 'Strengths', x: 0, y: 0, cols: 6, rows: 4, cluster_id: null },
      { name: 'Weaknesses', x: 6, y: 0, cols: 6, rows: 4, cluster_id: null },
      { name: 'Opportunities', x: 0, y: 4, cols: 6, rows: 4, cluster_id: null },
      { name: 'Threats', x: 6, y: 4, cols: 6, rows: 4, cluster_id: null },
    ]);
    // Workshop zones get their own opaque ids, not the catalog's slugs.
    expect(canvas.zones.map((z) => z.id)).not.toContain('strengths');
    expect(Object.keys(await documentZones(w.id)).sort()).toEqual(canvas.zones.map((z) => z.id).sort());
    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).status).toBe(404);
    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token })).body).toEqual(canvas);
  });

  it('lets explicit members override those of the predefined canvas', async () => {
    const w = await seedWorkshop(t, ada);
    const renamed = await createCanvas(w.id, {
      canvas_id: 'start-stop-continue',
      name: 'Our retro',
      background: { cols: 24 },
    });
    expect(renamed.name).toBe('Our retro');
    expect(renamed.background).toEqual({ id: 'start-stop-continue', cols: 24, rows: 8 });
    expect(renamed.zones.map((z) => z.name)).toEqual(['Start', 'Stop', 'Continue']);

    const own = await createCanvas(w.id, {
      canvas_id: 'empathy-map',
      zones: [{ name: 'Only', x: 1, y: 1, rows: 2, cols: 2 }],
      image: CUSTOM.image,
    });
    expect(own.name).toBe('Empathy map');
    expect(own.background).toEqual({ id: 'empathy-map', cols: 12, rows: 10 });
    expect(own.zones).toEqual([
      { id: expect.any(String), name: 'Only', x: 1, y: 1, rows: 2, cols: 2, cluster_id: null },
    ]);
    expect(own.image).toEqual(CUSTOM.image);
  });

  it('replaces the existing canvas: old zones leave SQL and the document; removeCanvas then addCanvas are logged', async () => {
    const { w, canvas: old } = await workshopWithCanvas();
    const replacement = await createCanvas(w.id, { canvas_id: 'impact-effort' });
    expect(replacement.id).not.toBe(old.id);

    const doc = await documentZones(w.id);
    expect(Object.keys(doc).sort()).toEqual(replacement.zones.map((z) => z.id).sort());
    for (const zone of old.zones) expect(doc[zone.id]).toBeUndefined();
    expect((await sqlZones(w.id)).map((z) => z.id)).toEqual(replacement.zones.map((z) => z.id));
    expect(
      (await t.db.select().from(t.tables.canvases).where(eq(t.tables.canvases.workshopId, w.id))).map((c) => c.id),
    ).toEqual([replacement.id]);
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['addCanvas', { canvas: old }],
      ['removeCanvas', { canvas: old }],
      ['addCanvas', { canvas: replacement }],
    ]);
    expectError(
      await t.request<ZoneOutput>('GET', anyZonePath(old.zones[0]!.id), { token: ada.token }),
      404,
      'not_found',
    );
    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).body).toEqual(replacement);
  });

  it('keeps the zones a new canvas names by id, with their cluster links, in REST, SQL and the document', async () => {
    const { w, canvas: old } = await workshopWithCanvas();
    const [well, improve] = old.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
    const client = await syncedDoc(t, w.id, ada.token);
    try {
      // Linked and placed from a Yjs client, as the console's canvas does.
      client.doc.transact(() => {
        client.cards.set(cluster.id, { position: 0, x: 3, y: 4 });
        client.zones.set(well!.id, { ...client.zones.get(well!.id)!, cluster_id: cluster.id });
      });
      await until(async () => (await sqlZones(w.id))[0]!.clusterId === cluster.id, 'the link is stored');

      const saved = await createCanvas(w.id, {
        name: 'Retro board',
        background: { cols: 24, rows: 12 },
        zones: [
          { id: well!.id, name: 'Went very well', x: 0, y: 0, rows: 12, cols: 12 },
          { id: 'not-a-zone-of-it', name: 'Next', x: 12, y: 0, rows: 12, cols: 12 },
          { id: well!.id, name: 'Twice', x: 20, y: 0, rows: 1, cols: 1 },
        ],
      });
      expect(saved.zones[0]).toEqual({
        id: well!.id,
        name: 'Went very well',
        x: 0,
        y: 0,
        rows: 12,
        cols: 12,
        cluster_id: cluster.id,
      });
      expect([saved.zones[1]!.id, saved.zones[2]!.id]).not.toContain(well!.id);
      expect(saved.zones.map((z) => z.id)).not.toContain(improve!.id);
      expect([saved.zones[1]!.cluster_id, saved.zones[2]!.cluster_id]).toEqual([null, null]);

      expect((await t.request<ZoneOutput>('GET', anyZonePath(well!.id), { token: bob.token })).body).toEqual(
        saved.zones[0],
      );
      expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).body).toEqual(saved);
      expect((await sqlZones(w.id)).map((z) => [z.id, z.clusterId])).toEqual(
        saved.zones.map((z) => [z.id, z.cluster_id]),
      );
      const { id: _, ...state } = saved.zones[0]!;
      expect((await documentZones(w.id))[well!.id]).toEqual(state);
      await until(() => client.zones.get(well!.id)?.name === 'Went very well', 'the client sees the kept zone');
      expect(client.zones.get(well!.id)).toEqual(state);
      expect(client.zones.has(improve!.id)).toBe(false);
      // The cluster's place on the canvas is the card's, which a canvas write leaves alone.
      expect(client.cards.get(cluster.id)).toMatchObject({ x: 3, y: 4 });
    } finally {
      client.destroy();
    }
  });

  it('refuses bad input with details, and changes nothing', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const zone = CUSTOM.zones[0]!;
    const cases: Array<[unknown, string]> = [
      [{ background: { cols: 1, rows: 1 } }, 'name'],
      [{ name: '  ', background: { cols: 1, rows: 1 } }, 'name'],
      [{ name: 'x' }, 'background.rows'],
      [{ name: 'x', background: { cols: 1 } }, 'background.rows'],
      [{ name: 'x', background: { rows: 1 } }, 'background.cols'],
      [{ name: 'x', background: { cols: 0, rows: 1 } }, 'background.cols'],
      [{ name: 'x', background: { cols: -2, rows: 1 } }, 'background.cols'],
      [{ name: 'x', background: { cols: '3', rows: 1 } }, 'background.cols'],
      [{ name: 'x', background: 'big' }, 'background'],
      [{ ...CUSTOM, zones: 'all' }, 'zones'],
      [{ ...CUSTOM, zones: [{ ...zone, x: -1 }] }, 'zones.0.x'],
      [{ ...CUSTOM, zones: [zone, { name: 'No y', x: 0, rows: 1, cols: 1 }] }, 'zones.1.y'],
      [{ ...CUSTOM, zones: [{ ...zone, rows: null }] }, 'zones.0.rows'],
      [{ ...CUSTOM, zones: [{ x: 0, y: 0, rows: 1, cols: 1 }] }, 'zones.0.name'],
      [{ ...CUSTOM, image: { cols: 1, rows: 1, url: 'javascript:alert(1)' } }, 'image.url'],
      [{ ...CUSTOM, image: { cols: 1, rows: 1 } }, 'image.url'],
      [{ ...CUSTOM, image: { cols: 0, rows: 1, url: CUSTOM.image.url } }, 'image.cols'],
      [{ canvas_id: 'no-such-canvas' }, 'canvas_id'],
      [{ canvas_id: 7 }, 'canvas_id'],
      [{ canvas_id: 'swot', background: { rows: 0 } }, 'background.rows'],
      [{ ...CUSTOM, zones: Array.from({ length: 501 }, () => zone) }, 'zones'],
    ];
    await expectFieldsRefused((body) => t.request('POST', canvasPath(w.id), { token: ada.token, body }), cases);
    await expectRawBodyRefused(
      t,
      { path: canvasPath(w.id), token: ada.token },
      { body: '{"name":', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { path: canvasPath(w.id), token: ada.token },
      { body: 'name=x', contentType: 'text/plain' },
    );
    expectError(await t.request('POST', canvasPath(w.id), { token: ada.token }), 400, 'invalid_request');

    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token })).body).toEqual(canvas);
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual(['addCanvas']);
  });
});

describe('GET and DELETE /v1/workshops/:workshop_id/canvas', () => {
  it('answers 404 when the workshop has no canvas', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    expectError(await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token }), 404, 'not_found');
    expectError(await t.request('DELETE', canvasPath(w.id), { token: ada.token }), 404, 'not_found');
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('deletes the canvas: zones leave SQL and the document, removeCanvas is logged', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const res = await t.request('DELETE', canvasPath(w.id), { token: ada.token });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(await documentZones(w.id)).toEqual({});
    expect(await sqlZones(w.id)).toEqual([]);
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['addCanvas', { canvas }],
      ['removeCanvas', { canvas }],
    ]);
    expectError(await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token }), 404, 'not_found');
    expectError(
      await t.request<ZoneOutput>('GET', anyZonePath(canvas.zones[0]!.id), { token: ada.token }),
      404,
      'not_found',
    );
    expectError(await t.request('DELETE', canvasPath(w.id), { token: ada.token }), 404, 'not_found');
  });

  it('logs the canvas as the document had it when it was deleted', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    await placeZones(w.id, { [zone!.id]: { name: 'Moved', x: 3, y: 4, rows: 1, cols: 1, cluster_id: null } });
    expect((await t.request('DELETE', canvasPath(w.id), { token: ada.token })).status).toBe(204);
    const removed = (await eventLog(t, w.id)).at(-1)!;
    expect(removed.action).toBe('removeCanvas');
    expect((removed.change as { canvas: { zones: Zone[] } }).canvas.zones[0]).toEqual({
      id: zone!.id,
      name: 'Moved',
      x: 3,
      y: 4,
      rows: 1,
      cols: 1,
      cluster_id: null,
    });
  });
});

describe('the document is the truth for zones', () => {
  it('GET returns what the document says after a change made directly in it', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [first, second] = canvas.zones;
    await placeZones(w.id, { [first!.id]: { name: 'Renamed', x: 2.5, y: 1, rows: 3, cols: 4, cluster_id: null } });

    const read = await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token });
    expect(read.body.zones).toEqual([
      { id: first!.id, name: 'Renamed', x: 2.5, y: 1, rows: 3, cols: 4, cluster_id: null },
      second,
    ]);
    const one = await t.request<ZoneOutput>('GET', anyZonePath(first!.id), { token: bob.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ id: first!.id, name: 'Renamed', x: 2.5, y: 1, rows: 3, cols: 4, cluster_id: null });
    expect((await sqlZones(w.id)).map((z) => [z.name, z.x, z.y, z.rows, z.cols])).toEqual([
      ['Renamed', 2.5, 1, 3, 4],
      [second!.name, second!.x, second!.y, second!.rows, second!.cols],
    ]);
  });

  it("a y-websocket client sees REST canvas writes, and REST sees the client's moves", async () => {
    const w = await seedWorkshop(t, ada);
    const client = await syncedDoc(t, w.id, ada.token);
    try {
      const canvas = await createCanvas(w.id, { canvas_id: 'swot' });
      const [zone] = canvas.zones;
      await until(() => client.zones.size === 4, 'zones reach the client');
      expect(client.zones.get(zone!.id)).toEqual({ name: 'Strengths', x: 0, y: 0, cols: 6, rows: 4, cluster_id: null });

      const moved = { name: 'Our strengths', x: 1, y: 0.5, rows: 3, cols: 5, cluster_id: null };
      client.zones.set(zone!.id, moved);
      await until(async () => (await sqlZones(w.id))[0]!.name === 'Our strengths', 'the move is stored');
      expect((await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: ada.token })).body).toEqual({
        id: zone!.id,
        ...moved,
      });
      expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token })).body.zones[0]).toEqual({
        id: zone!.id,
        ...moved,
      });

      const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
      expect(
        (await t.request('PUT', zonePath(w.id, zone!.id), { token: ada.token, body: { cluster_id: cluster.id } }))
          .status,
      ).toBe(204);
      await until(() => client.zones.get(zone!.id)?.cluster_id === cluster.id, 'the link reaches the client');
      expect(client.zones.get(zone!.id)).toEqual({ ...moved, cluster_id: cluster.id });

      expect((await t.request('DELETE', canvasPath(w.id), { token: ada.token })).status).toBe(204);
      await until(() => client.zones.size === 0, 'the zones leave the client');
    } finally {
      client.destroy();
    }
  });

  it('a cluster link made in the document shows in REST, and PUT keeps the rest of the zone as the document has it', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
    const moved = { name: 'Went well', x: 7, y: 8, rows: 2, cols: 3, cluster_id: cluster.id };
    await placeZones(w.id, { [zone!.id]: moved });
    expect((await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: bob.token })).body.cluster_id).toBe(
      cluster.id,
    );

    expect(
      (await t.request('PUT', zonePath(w.id, zone!.id), { token: ada.token, body: { cluster_id: null } })).status,
    ).toBe(204);
    expect((await documentZones(w.id))[zone!.id]).toEqual({ ...moved, cluster_id: null });
    const [row] = await sqlZones(w.id);
    expect([row!.x, row!.y, row!.rows, row!.cols, row!.clusterId]).toEqual([7, 8, 2, 3, null]);
    expect((await eventLog(t, w.id)).at(-1)!.change).toEqual({
      zone: { id: zone!.id, ...moved, cluster_id: null },
      changes: { cluster_id: [cluster.id, null] },
    });
  });
});

describe('GET /v1/workshops/canvas/zones/:id', () => {
  it('returns the zone to members of its workshop, 404 to anyone else', async () => {
    const { canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    for (const user of [ada, bob]) {
      const res = await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(zone);
    }
    expectError(await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: eve.token }), 404, 'not_found');
    expectError(
      await t.request<ZoneOutput>('GET', anyZonePath('no-such-zone'), { token: ada.token }),
      404,
      'not_found',
    );
    expectError(await t.request<ZoneOutput>('GET', anyZonePath(zone!.id)), 401, 'unauthenticated');
  });
});

describe('PUT /v1/workshops/:workshop_id/canvas/zones/:id', () => {
  it('links a zone to a cluster and unlinks it, through the document and the SQL copy, logging updateZone', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone, other] = canvas.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });

    const linked = await t.request('PUT', zonePath(w.id, zone!.id), {
      token: ada.token,
      body: { cluster_id: cluster.id },
    });
    expect(linked.status).toBe(204);
    expect(linked.body).toBe('');
    expect((await documentZones(w.id))[zone!.id]!.cluster_id).toBe(cluster.id);
    expect((await documentZones(w.id))[other!.id]!.cluster_id).toBeNull();
    expect((await sqlZones(w.id)).map((z) => z.clusterId)).toEqual([cluster.id, null]);
    expect((await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: bob.token })).body).toEqual({
      ...zone,
      cluster_id: cluster.id,
    });
    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).body.zones).toEqual([
      { ...zone, cluster_id: cluster.id },
      other,
    ]);

    // Linking again to the same cluster is a no-op: nothing logged.
    expect(
      (await t.request('PUT', zonePath(w.id, zone!.id), { token: ada.token, body: { cluster_id: cluster.id } })).status,
    ).toBe(204);

    const unlinked = await t.request('PUT', zonePath(w.id, zone!.id), {
      token: ada.token,
      body: { cluster_id: null, name: 'ignored' },
    });
    expect(unlinked.status).toBe(204);
    expect((await documentZones(w.id))[zone!.id]).toEqual({
      name: zone!.name,
      x: zone!.x,
      y: zone!.y,
      rows: zone!.rows,
      cols: zone!.cols,
      cluster_id: null,
    });
    expect((await sqlZones(w.id)).map((z) => z.clusterId)).toEqual([null, null]);

    expect((await eventLog(t, w.id)).map((e) => [e.action, e.userId, e.change])).toEqual([
      ['addCanvas', ada.id, { canvas }],
      [
        'updateZone',
        ada.id,
        { zone: { ...zone, cluster_id: cluster.id }, changes: { cluster_id: [null, cluster.id] } },
      ],
      ['updateZone', ada.id, { zone, changes: { cluster_id: [cluster.id, null] } }],
    ]);
  });

  it('refuses anything but a cluster of this workshop or null, and changes nothing', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
    const idea = await seedCard(t, w.id, ada, { type: 'idea', parentId: cluster.id });
    const elsewhere = await seedWorkshop(t, ada);
    const foreign = await seedCard(t, elsewhere.id, ada, { type: 'cluster' });
    for (const body of [
      { cluster_id: idea.id },
      { cluster_id: foreign.id },
      { cluster_id: 'no-such-card' },
      { cluster_id: 12 },
      { cluster_id: '' },
      {},
    ]) {
      const res = await t.request('PUT', zonePath(w.id, zone!.id), { token: ada.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path, JSON.stringify(body)).toBe('cluster_id');
    }
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: zonePath(w.id, zone!.id), token: ada.token },
      { body: 'x', contentType: 'text/plain' },
    );
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: zonePath(w.id, zone!.id), token: ada.token },
      { body: '{', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    // A zone of another workshop's canvas is not found through this workshop.
    const { canvas: otherCanvas } = await workshopWithCanvas();
    expectError(
      await t.request('PUT', zonePath(w.id, otherCanvas.zones[0]!.id), {
        token: ada.token,
        body: { cluster_id: cluster.id },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('PUT', zonePath(w.id, 'no-such-zone'), { token: ada.token, body: { cluster_id: cluster.id } }),
      404,
      'not_found',
    );

    expect((await documentZones(w.id))[zone!.id]!.cluster_id).toBeNull();
    expect((await sqlZones(w.id)).map((z) => z.clusterId)).toEqual([null, null]);
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual(['addCanvas']);
  });
});

describe('who may do what', () => {
  it('members read; only facilitators write; strangers see nothing', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });

    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).status).toBe(200);
    expectError(await t.request('POST', canvasPath(w.id), { token: bob.token, body: CUSTOM }), 403, 'forbidden');
    expectError(await t.request('DELETE', canvasPath(w.id), { token: bob.token }), 403, 'forbidden');
    expectError(
      await t.request('PUT', zonePath(w.id, zone!.id), { token: bob.token, body: { cluster_id: cluster.id } }),
      403,
      'forbidden',
    );

    expectError(await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: eve.token }), 404, 'not_found');
    expectError(await t.request('POST', canvasPath(w.id), { token: eve.token, body: CUSTOM }), 404, 'not_found');
    expectError(await t.request('DELETE', canvasPath(w.id), { token: eve.token }), 404, 'not_found');
    expectError(
      await t.request('PUT', zonePath(w.id, zone!.id), { token: eve.token, body: { cluster_id: cluster.id } }),
      404,
      'not_found',
    );
    expectError(
      await t.request<CanvasOutput>('GET', canvasPath('no-such-workshop'), { token: ada.token }),
      404,
      'not_found',
    );
    expectError(await t.request('POST', canvasPath(w.id), { body: CUSTOM }), 401, 'unauthenticated');

    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: ada.token })).body).toEqual(canvas);
    expect((await sqlZones(w.id)).map((z) => z.clusterId)).toEqual([null, null]);
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual(['addCanvas']);
  });

  it('an archived workshop refuses canvas writes with 409 but still reads', async () => {
    const { w, canvas } = await workshopWithCanvas();
    const [zone] = canvas.zones;
    const cluster = await seedCard(t, w.id, ada, { type: 'cluster' });
    const archived = await t.request('PUT', `/v1/workshops/${w.id}`, { token: ada.token, body: { state: 'archived' } });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    const before = (await eventLog(t, w.id)).length;

    expectError(
      await t.request('POST', canvasPath(w.id), { token: ada.token, body: CUSTOM }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('POST', canvasPath(w.id), { token: ada.token, body: { canvas_id: 'swot' } }),
      409,
      'workshop_archived',
    );
    expectError(await t.request('DELETE', canvasPath(w.id), { token: ada.token }), 409, 'workshop_archived');
    expectError(
      await t.request('PUT', zonePath(w.id, zone!.id), { token: ada.token, body: { cluster_id: cluster.id } }),
      409,
      'workshop_archived',
    );
    // Participants learn they may not, before learning the workshop is archived.
    expectError(await t.request('DELETE', canvasPath(w.id), { token: bob.token }), 403, 'forbidden');

    expect((await t.request<CanvasOutput>('GET', canvasPath(w.id), { token: bob.token })).body).toEqual(canvas);
    expect((await t.request<ZoneOutput>('GET', anyZonePath(zone!.id), { token: bob.token })).body).toEqual(zone);
    expect(Object.keys(await documentZones(w.id)).sort()).toEqual(canvas.zones.map((z) => z.id).sort());
    expect(await eventLog(t, w.id)).toHaveLength(before);
  });
});

describe('OpenAPI', () => {
  it('documents every canvas route with its success status and body', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const expected: Array<[string, string, string]> = [
      ['get', '/v1/canvas', '200'],
      ['get', '/v1/canvas/{id}', '200'],
      ['get', '/v1/workshops/canvas/zones/{id}', '200'],
      ['get', '/v1/workshops/{workshop_id}/canvas', '200'],
      ['post', '/v1/workshops/{workshop_id}/canvas', '201'],
      ['delete', '/v1/workshops/{workshop_id}/canvas', '204'],
      ['put', '/v1/workshops/{workshop_id}/canvas/zones/{id}', '204'],
    ];
    for (const [method, path, status] of expected) {
      const operation = document.paths?.[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.responses[status], `${method} ${path} ${status}`).toBeDefined();
      if (status !== '204') expect(operation.responses[status].content['application/json'].schema).toBeDefined();
    }
    const create = document.paths['/v1/workshops/{workshop_id}/canvas']!.post;
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['canvas_id', 'name', 'background', 'zones', 'image']),
    );
  });
});
