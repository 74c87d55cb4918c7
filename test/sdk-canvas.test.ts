import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { ApiError, type WorkshopClient } from '../client-sdk/src/index';
import { openCanvas, type WorkshopCanvas } from '../client-sdk/src/canvas';
import { disposedAfterEach, useServer } from './helpers/cast';
import { sdkUser, sdkWorkshop } from './helpers/sdk';
import { until } from './helpers/wait';

/*
 * The SDK's canvas entry point against the real sync endpoint: two clients converge on a move,
 * see each other's cursors, and a refused connection is a clear ApiError.
 */

const t = useServer();

const track = disposedAfterEach<WorkshopCanvas>((canvas) => canvas.destroy());
const canvasOf = (api: Pick<WorkshopClient, 'baseUrl' | 'token'>, workshopId: string) =>
  track(openCanvas(api, workshopId, { WebSocket, maxBackoffTime: 200 }));

const signedUp = async (name: string) => (await sdkUser(t, name)).api;

async function scene() {
  const fay = await signedUp('Fay');
  const pat = await signedUp('Pat');
  const { workshop, inWorkshop } = await sdkWorkshop(fay, [pat], 'Canvas');
  const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Cluster' },
  });
  const idea = await pat.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'idea', title: 'Idea', parent: cluster.id },
  });
  const canvas = await fay.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop, body: { canvas_id: 'swot' } });
  return { fay, pat, workshop, cluster, idea, zone: canvas.zones[0]! };
}

describe('SDK canvas', () => {
  it('converges two clients on card moves and zone changes', async () => {
    const { fay, pat, workshop, cluster, idea, zone } = await scene();
    const faysCanvas = canvasOf(fay, workshop.id);
    const patsCanvas = canvasOf(pat, workshop.id);
    await Promise.all([faysCanvas.synced, patsCanvas.synced]);
    expect(Object.keys(patsCanvas.placements()).sort()).toEqual([cluster.id, idea.id].sort());
    expect(faysCanvas.zones()[zone.id]?.name).toBe(zone.name);

    const seenByFay: string[] = [];
    faysCanvas.observe(({ cards }) => seenByFay.push(...cards));
    patsCanvas.moveCard(idea.id, { x: 120, y: 80 });
    await until(() => faysCanvas.placement(idea.id)?.x === 120, "the participant's move on the facilitator's canvas");
    expect(faysCanvas.placement(idea.id)).toEqual({ position: 0, x: 120, y: 80 });
    expect(seenByFay).toContain(idea.id);

    faysCanvas.moveCard(cluster.id, { x: 10, y: 20 });
    faysCanvas.updateZone(zone.id, { name: 'Strong points' });
    await until(
      () => patsCanvas.zones()[zone.id]?.name === 'Strong points' && patsCanvas.placement(cluster.id)?.x === 10,
      "the facilitator's changes on the participant's canvas",
    );

    // The server stored both moves: REST reads them back.
    const card = await fay.get('/v1/workshops/{workshop_id}/cards/{id}', {
      params: { path: { workshop_id: workshop.id, id: idea.id } },
    });
    expect(card.position).toBe(0);
    const events = await fay.get('/v1/workshops/{workshop_id}/events', {
      params: { path: { workshop_id: workshop.id }, query: { per_page: 5 } },
    });
    expect(events.map((event) => event.action)).toContain('moveCards');
    expect(() => patsCanvas.moveCard('no-such-card', { x: 1 })).toThrow(/not on the canvas/);
  });

  it('shares presence for cursors', async () => {
    const { fay, pat, workshop } = await scene();
    const faysCanvas = canvasOf(fay, workshop.id);
    const patsCanvas = canvasOf(pat, workshop.id);
    await Promise.all([faysCanvas.synced, patsCanvas.synced]);
    patsCanvas.setPresence({ name: 'Pat', cursor: { x: 5, y: 6 } });
    await until(
      () => [...faysCanvas.others().values()].some((presence) => presence.cursor?.x === 5),
      "the participant's cursor",
    );
    expect([...faysCanvas.others().values()]).toEqual([{ name: 'Pat', cursor: { x: 5, y: 6 } }]);
    expect(faysCanvas.others().has(faysCanvas.doc.clientID)).toBe(false);
  });

  it('fails with ApiError on the close codes 4401, 4404 and 4400', async () => {
    const { fay, workshop, idea } = await scene();
    const stranger = await signedUp('Stan');

    const badToken = await canvasOf({ baseUrl: t.url, token: 'not-a-token' }, workshop.id).synced.catch(
      (err: unknown) => err,
    );
    expect(badToken).toBeInstanceOf(ApiError);
    expect(badToken).toMatchObject({ status: 401, code: 'unauthenticated' });

    const nonMember = canvasOf(stranger, workshop.id);
    await expect(nonMember.synced).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(nonMember.error?.code).toBe('not_found');

    // A nested shared type in the cards map is refused by the server's guards.
    const faysCanvas = canvasOf(fay, workshop.id);
    await faysCanvas.synced;
    const refusals: ApiError[] = [];
    faysCanvas.onError((error) => refusals.push(error));
    faysCanvas.doc.getMap('cards').set(idea.id, new Y.Map());
    await until(() => refusals.length === 1, 'the malformed update refused');
    expect(refusals[0]).toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
