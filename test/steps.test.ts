import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS } from '../src/domain/permissions';
import { DEFAULT_VIEW } from '../src/domain/view';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { StepOutput } from '../src/domain/steps';
import type { EventOutput } from '../src/modules/events/schemas';
import { expectError, seedCard, seedCurrentStep, seedWorkshop, seedWorkshopWith, errorOf } from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

function newWorkshop(values: Parameters<typeof seedWorkshop>[2] = {}) {
  return seedWorkshopWith(t, facilitator, [participant], values);
}

async function events(workshopId: string) {
  const { events } = t.tables;
  return t.db
    .select({ action: events.action, userId: events.userId, change: events.change })
    .from(events)
    .where(eq(events.workshopId, workshopId))
    .orderBy(events.seq);
}

const stepsPath = (workshopId: string) => `/v1/workshops/${workshopId}/steps`;

async function addStep(workshopId: string, body: Record<string, unknown>) {
  const res = await t.request<StepOutput>('POST', stepsPath(workshopId), { token: facilitator.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function listNames(workshopId: string, token = facilitator.token) {
  const res = await t.request<StepOutput[]>('GET', stepsPath(workshopId), { token });
  expect(res.status).toBe(200);
  expect(res.body.map((s) => s.position)).toEqual(res.body.map((_, i) => i));
  return res.body.map((s) => s.name);
}

describe('steps: create and read', () => {
  it('creates a step with default prefs and view, at the end', async () => {
    const w = await newWorkshop();
    const res = await t.request('POST', stepsPath(w.id), { token: facilitator.token, body: { name: 'Collect ideas' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      position: 0,
      name: 'Collect ideas',
      instructions: '',
      prefs: DEFAULT_PREFS,
      view: DEFAULT_VIEW,
      has_illustration: false,
    });
    const second = await addStep(w.id, { name: 'Vote', instructions: 'Spend your points.' });
    expect(second.position).toBe(1);

    const one = await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${second.id}`, { token: participant.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(second);
    expect(await listNames(w.id, participant.token)).toEqual(['Collect ideas', 'Vote']);

    const log = await events(w.id);
    expect(log.map((e) => e.action)).toEqual(['addStep', 'addStep']);
    expect(log[0]).toMatchObject({ userId: facilitator.id, change: { step: res.body } });
  });

  it('merges given prefs and view over the defaults', async () => {
    const w = await newWorkshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const step = await addStep(w.id, {
      name: 'Vote',
      prefs: { allow_add_idea: false, allow_edit: 'none', allow_display_votes: false },
      view: { sort: 'score', sort_reverse: true, show_cluster_ids: [cluster.id] },
      unknown_member: 'ignored',
    });
    expect(step.prefs).toEqual({
      ...DEFAULT_PREFS,
      allow_add_idea: false,
      allow_edit: 'none',
      allow_display_votes: false,
    });
    expect(step.view).toEqual({ ...DEFAULT_VIEW, sort: 'score', sort_reverse: true, show_cluster_ids: [cluster.id] });
    expect(step).not.toHaveProperty('unknown_member');
  });

  it('refuses views that point outside the workshop', async () => {
    const w = await newWorkshop();
    const res = await t.request<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, {
      token: facilitator.token,
      body: { name: 'S', view: { card: 'nope' } },
    });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.path).toBe('view.card');
  });

  it('logs a step change when the current step is deleted', async () => {
    const w = await newWorkshop();
    const step = await addStep(w.id, { name: 'Only' });
    await t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, {
      token: facilitator.token,
      body: { current_step_id: step.id },
    });
    expect(
      (await t.request('DELETE', `/v1/workshops/${w.id}/steps/${step.id}`, { token: facilitator.token })).status,
    ).toBe(204);
    const log = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events?per_page=2`, {
      token: facilitator.token,
    });
    expect(log.body.map((e: { action: string }) => e.action)).toEqual(['changeStep', 'removeStep']);
    expect(log.body[0]!.change.step).toBeNull();
    expect((log.body[0]!.change.workshop as WorkshopOutput).current_step_id).toBeNull();
  });

  it('logs nothing for an update that changes nothing', async () => {
    const w = await newWorkshop();
    const step = await addStep(w.id, { name: 'Same' });
    const before = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events`, { token: facilitator.token });
    const res = await t.request<StepOutput>('PUT', `/v1/workshops/${w.id}/steps/${step.id}`, {
      token: facilitator.token,
      body: { name: 'Same' },
    });
    expect(res.status).toBe(200);
    const after = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events`, { token: facilitator.token });
    expect(after.headers.get('x-total-count')).toBe(before.headers.get('x-total-count'));
  });

  it('inserts at a given position and keeps positions 0..n-1', async () => {
    const w = await newWorkshop();
    await addStep(w.id, { name: 'B' });
    await addStep(w.id, { name: 'C' });
    const a = await addStep(w.id, { name: 'A', position: 0 });
    expect(a.position).toBe(0);
    await addStep(w.id, { name: 'BB', position: 2 });
    const far = await addStep(w.id, { name: 'Z', position: 99 });
    expect(far.position).toBe(4);
    expect(await listNames(w.id)).toEqual(['A', 'B', 'BB', 'C', 'Z']);
  });

  it('refuses bad input with details and changes nothing', async () => {
    const w = await newWorkshop();
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'S', position: -1 }, 'position'],
      [{ name: 'S', position: 1.5 }, 'position'],
      [{ name: 'S', instructions: ['x'] }, 'instructions'],
      [{ name: 'S', prefs: { allow_edit: 'some' } }, 'prefs.allow_edit'],
      [{ name: 'S', prefs: { allow_rate: 'yes' } }, 'prefs.allow_rate'],
      [{ name: 'S', prefs: 'all' }, 'prefs'],
      [{ name: 'S', view: { sort: 'alphabetical' } }, 'view.sort'],
      [{ name: 'S', view: { show_cluster_ids: 'a' } }, 'view.show_cluster_ids'],
    ];
    await expectFieldsRefused((body) => t.request('POST', stepsPath(w.id), { token: facilitator.token, body }), cases);
    const json = { 'content-type': 'application/json' };
    expectError(
      await t.request('POST', stepsPath(w.id), { token: facilitator.token, rawBody: '{"name":', headers: json }),
      400,
      'invalid_request',
    );
    expectError(
      await t.request('POST', stepsPath(w.id), { token: facilitator.token, rawBody: '[1]', headers: json }),
      400,
      'invalid_request',
    );
    await expectRawBodyRefused(
      t,
      { path: stepsPath(w.id), token: facilitator.token },
      { body: 'name=S', contentType: 'text/plain' },
    );
    expect(await listNames(w.id)).toEqual([]);
    expect(await events(w.id)).toEqual([]);
  });

  it('answers 404 for strangers, unknown workshops and steps of another workshop', async () => {
    const w = await newWorkshop();
    const other = await newWorkshop();
    const step = await addStep(w.id, { name: 'Mine' });
    expectError(await t.request('GET', stepsPath(w.id), { token: stranger.token }), 404, 'not_found');
    expectError(
      await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${step.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('POST', stepsPath(w.id), { token: stranger.token, body: { name: 'X' } }),
      404,
      'not_found',
    );
    expectError(
      await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
        token: stranger.token,
        body: { name: 'X' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${stepsPath(w.id)}/${step.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', stepsPath('no-such-workshop'), { token: facilitator.token }), 404, 'not_found');
    expectError(
      await t.request<StepOutput>('GET', `${stepsPath(w.id)}/no-such-step`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request<StepOutput>('GET', `${stepsPath(other.id)}/${step.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request<StepOutput>('PUT', `${stepsPath(other.id)}/${step.id}`, {
        token: facilitator.token,
        body: { name: 'X' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${stepsPath(other.id)}/${step.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', stepsPath(w.id)), 401, 'unauthenticated');
    expect(await listNames(w.id)).toEqual(['Mine']);
  });

  it('lets participants read but not write, whatever the step allows', async () => {
    const w = await newWorkshop();
    await seedCurrentStep(t, w.id, { allow_edit: 'all', allow_delete: 'all' });
    const step = await addStep(w.id, { name: 'Second' });
    const before = (await events(w.id)).length;
    expectError(
      await t.request('POST', stepsPath(w.id), { token: participant.token, body: { name: 'X' } }),
      403,
      'forbidden',
    );
    expectError(
      await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
        token: participant.token,
        body: { name: 'X' },
      }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('DELETE', `${stepsPath(w.id)}/${step.id}`, { token: participant.token }),
      403,
      'forbidden',
    );
    expect(await listNames(w.id, participant.token)).toEqual(['Step 1', 'Second']);
    expect(await events(w.id)).toHaveLength(before);
  });
});

describe('steps: update and delete', () => {
  it('updates members, merges prefs and view, and logs the changes', async () => {
    const w = await newWorkshop();
    const step = await addStep(w.id, {
      name: 'Vote',
      instructions: 'Old',
      prefs: { allow_rate: false },
      view: { sort: 'score' },
    });
    const res = await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
      token: facilitator.token,
      body: { name: 'Vote now', prefs: { allow_add_idea: false }, view: { show: 'bars' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...step,
      name: 'Vote now',
      instructions: 'Old',
      prefs: { ...step.prefs, allow_add_idea: false, allow_rate: false },
      view: { ...step.view, sort: 'score', show: 'bars' },
    });
    expect(
      (await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${step.id}`, { token: facilitator.token })).body,
    ).toEqual(res.body);

    const update = (await events(w.id)).at(-1)!;
    expect(update.action).toBe('updateStep');
    expect(update.change.step).toEqual(res.body);
    expect(update.change.changes).toEqual({
      name: ['Vote', 'Vote now'],
      prefs: [step.prefs, res.body.prefs],
      view: [step.view, res.body.view],
    });
  });

  it('moves a step and re-packs the others', async () => {
    const w = await newWorkshop();
    const [a] = [
      await addStep(w.id, { name: 'A' }),
      await addStep(w.id, { name: 'B' }),
      await addStep(w.id, { name: 'C' }),
    ];
    const moved = await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${a.id}`, {
      token: facilitator.token,
      body: { name: 'A', position: 2 },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.position).toBe(2);
    expect(await listNames(w.id)).toEqual(['B', 'C', 'A']);
    expect((await events(w.id)).at(-1)!.change.changes).toEqual({ position: [0, 2] });

    await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${a.id}`, {
      token: facilitator.token,
      body: { name: 'A', position: 0 },
    });
    expect(await listNames(w.id)).toEqual(['A', 'B', 'C']);
    const clamped = await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${a.id}`, {
      token: facilitator.token,
      body: { name: 'A', position: 50 },
    });
    expect(clamped.body.position).toBe(2);
    expect(await listNames(w.id)).toEqual(['B', 'C', 'A']);
  });

  it('requires a name on update and refuses bad members', async () => {
    const w = await newWorkshop();
    const step = await addStep(w.id, { name: 'Keep' });
    const missing = await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
      token: facilitator.token,
      body: { instructions: 'x' },
    });
    expectError(missing, 400, 'invalid_request');
    expect(errorOf(missing).details?.[0]?.path).toBe('name');
    const badView = await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
      token: facilitator.token,
      body: { name: 'K', view: { card_status: 'gone' } },
    });
    expect(errorOf(badView).details?.[0]?.path).toBe('view.card_status');
    expect(
      (await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${step.id}`, { token: facilitator.token })).body,
    ).toEqual(step);
    expect((await events(w.id)).map((e) => e.action)).toEqual(['addStep']);
  });

  it('deletes a step, re-packs positions and logs it', async () => {
    const w = await newWorkshop();
    await addStep(w.id, { name: 'A' });
    const b = await addStep(w.id, { name: 'B' });
    await addStep(w.id, { name: 'C' });
    const res = await t.request('DELETE', `${stepsPath(w.id)}/${b.id}`, { token: facilitator.token });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(await listNames(w.id)).toEqual(['A', 'C']);
    expectError(
      await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${b.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${stepsPath(w.id)}/${b.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expect((await events(w.id)).at(-1)).toMatchObject({
      action: 'removeStep',
      userId: facilitator.id,
      change: { step: b },
    });
  });

  it('clears current_step_id when the current step is deleted, and only then', async () => {
    const w = await newWorkshop();
    const current = await seedCurrentStep(t, w.id, { allow_add_idea: false });
    const other = await addStep(w.id, { name: 'Other' });
    const currentStepId = async () =>
      (await t.db.select().from(t.tables.workshops).where(eq(t.tables.workshops.id, w.id)))[0]!.currentStepId;

    expect((await t.request('DELETE', `${stepsPath(w.id)}/${other.id}`, { token: facilitator.token })).status).toBe(
      204,
    );
    expect(await currentStepId()).toBe(current.id);
    expect((await t.request('DELETE', `${stepsPath(w.id)}/${current.id}`, { token: facilitator.token })).status).toBe(
      204,
    );
    expect(await currentStepId()).toBeNull();
    expect(await listNames(w.id)).toEqual([]);
  });

  it('refuses every write in an archived workshop and records nothing', async () => {
    const w = await newWorkshop();
    const step = await addStep(w.id, { name: 'Frozen' });
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(
      await t.request('POST', stepsPath(w.id), { token: facilitator.token, body: { name: 'X' } }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request<StepOutput>('PUT', `${stepsPath(w.id)}/${step.id}`, {
        token: facilitator.token,
        body: { name: 'X' },
      }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('DELETE', `${stepsPath(w.id)}/${step.id}`, { token: facilitator.token }),
      409,
      'workshop_archived',
    );
    expect(
      (await t.request<StepOutput>('GET', `${stepsPath(w.id)}/${step.id}`, { token: participant.token })).body,
    ).toEqual(step);
    expect(await listNames(w.id)).toEqual(['Frozen']);
    expect((await events(w.id)).map((e) => e.action)).toEqual(['addStep']);
  });
});
