import { describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { StepOutput } from '../src/domain/steps';
import type { EventOutput } from '../src/modules/events/schemas';
import type { CanvasOutput, ZoneOutput } from '../src/domain/canvas';
import type { CriterionOutput } from '../src/domain/criteria';
import type { CardOutput } from '../src/domain/cards';
import { seedCard, seedCurrentStep, seedMember, seedWorkshop, errorOf } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [fay, pat] = useUsers(t, 'Fay', 'Pat');

/** The card an `updateCard` event carries, from the newest event of a listing. */
const cardIn = (log: { body: EventOutput[] }) => (log.body[0]!.change as { card: CardOutput }).card;

describe('views never point at deleted cards', () => {
  it('clears view.card and show_cluster_ids of the workshop and its steps when cards go', async () => {
    const w = await seedWorkshop(t, fay);
    const cluster = await seedCard(t, w.id, fay, { type: 'cluster' });
    const idea = await seedCard(t, w.id, fay, { parentId: cluster.id });
    const other = await seedCard(t, w.id, fay, { type: 'cluster' });
    const view = { card: idea.id, show_clusters: 'multi', show_cluster_ids: [cluster.id, other.id] };
    expect(
      (await t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, { token: fay.token, body: { view } })).status,
    ).toBe(200);
    const step = await t.request<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, {
      token: fay.token,
      body: { name: 'Show', view },
    });
    expect(step.status).toBe(201);

    expect((await t.request('DELETE', `/v1/workshops/${w.id}/cards/${cluster.id}`, { token: fay.token })).status).toBe(
      204,
    );

    const workshop = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: fay.token });
    expect(workshop.body.view).toMatchObject({ card: null, show_cluster_ids: [other.id] });
    const after = await t.request<StepOutput>('GET', `/v1/workshops/${w.id}/steps/${step.body.id}`, {
      token: fay.token,
    });
    expect(after.body.view).toMatchObject({ card: null, show_cluster_ids: [other.id] });
    // The cleaned view is valid input again.
    expect(
      (
        await t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, {
          token: fay.token,
          body: { view: workshop.body.view },
        })
      ).status,
    ).toBe(200);

    const log = await t.request<EventOutput[]>(
      'GET',
      `/v1/workshops/${w.id}/events?filters=removeCard,updateWorkshop,updateStep&per_page=3`,
      { token: fay.token },
    );
    expect(log.body.map((e: { action: string }) => e.action).sort()).toEqual([
      'removeCard',
      'updateStep',
      'updateWorkshop',
    ]);
  });
});

describe('the event log and hidden votes', () => {
  it('does not show vote totals to a participant whose step hides them', async () => {
    const w = await seedWorkshop(t, fay);
    await seedMember(t, w.id, pat);
    const cluster = await seedCard(t, w.id, fay, { type: 'cluster' });
    expect(
      (
        await t.request('POST', `/v1/workshops/${w.id}/cards/${cluster.id}/votes`, {
          token: fay.token,
          body: { value: 3 },
        })
      ).status,
    ).toBe(201);
    await seedCurrentStep(t, w.id, { allow_display_votes: false, allow_edit: 'all' });
    expect(
      (
        await t.request<CardOutput>('PUT', `/v1/workshops/${w.id}/cards/${cluster.id}`, {
          token: pat.token,
          body: { title: 'Renamed' },
        })
      ).status,
    ).toBe(200);

    const facilitatorLog = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events?filters=updateCard`, {
      token: fay.token,
    });
    expect(cardIn(facilitatorLog).summary.score).toBe(3);
    const participantLog = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events?filters=updateCard`, {
      token: pat.token,
    });
    expect(cardIn(participantLog).summary.score).toBeNull();
    expect(cardIn(participantLog).title).toBe('Renamed');
  });
});

describe('zones never link deleted clusters', () => {
  it('unlinks a zone when its cluster is deleted, and follows a merge', async () => {
    const w = await seedWorkshop(t, fay);
    const [a, b, c] = [
      await seedCard(t, w.id, fay, { type: 'cluster' }),
      await seedCard(t, w.id, fay, { type: 'cluster' }),
      await seedCard(t, w.id, fay, { type: 'cluster' }),
    ];
    const canvas = await t.request<CanvasOutput>('POST', `/v1/workshops/${w.id}/canvas`, {
      token: fay.token,
      body: {
        name: 'Board',
        background: { cols: 4, rows: 2 },
        zones: [
          { name: 'Left', x: 0, y: 0, cols: 2, rows: 2 },
          { name: 'Right', x: 2, y: 0, cols: 2, rows: 2 },
        ],
      },
    });
    expect(canvas.status).toBe(201);
    const [left, right] = canvas.body.zones as [ZoneOutput, ZoneOutput];
    const link = (zoneId: string, clusterId: string) =>
      t.request('PUT', `/v1/workshops/${w.id}/canvas/zones/${zoneId}`, {
        token: fay.token,
        body: { cluster_id: clusterId },
      });
    expect((await link(left.id, a.id)).status).toBe(204);
    expect((await link(right.id, b.id)).status).toBe(204);

    expect((await t.request('DELETE', `/v1/workshops/${w.id}/cards/${a.id}`, { token: fay.token })).status).toBe(204);
    expect(
      (await t.request<ZoneOutput>('GET', `/v1/workshops/canvas/zones/${left.id}`, { token: fay.token })).body
        .cluster_id,
    ).toBeNull();

    const merged = await t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards/merge`, {
      token: fay.token,
      body: { cards_id: [b.id, c.id] },
    });
    expect(merged.status).toBe(201);
    expect(
      (await t.request<ZoneOutput>('GET', `/v1/workshops/canvas/zones/${right.id}`, { token: fay.token })).body
        .cluster_id,
    ).toBe(merged.body.id);
  });
});

describe('sorting by criterion average', () => {
  it('needs the criterion in the same view', async () => {
    const w = await seedWorkshop(t, fay);
    const bad = await t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, {
      token: fay.token,
      body: { view: { sort: 'criterium_average' } },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).details?.[0]?.path).toBe('view.sort_criterium_id');
    const step = await t.request<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, {
      token: fay.token,
      body: { name: 'Rate', view: { sort: 'criterium_average' } },
    });
    expect(step.status).toBe(400);
    const criterion = await t.request<CriterionOutput>('POST', `/v1/workshops/${w.id}/criteria`, {
      token: fay.token,
      body: { title: 'Impact', scale: 1 },
    });
    const good = await t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, {
      token: fay.token,
      body: { view: { sort: 'criterium_average', sort_criterium_id: criterion.body.id } },
    });
    expect(good.status).toBe(200);
    expect(good.body.view).toMatchObject({ sort: 'criterium_average', sort_criterium_id: criterion.body.id });
  });
});
