import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS } from '../src/domain/permissions';
import { DEFAULT_VIEW } from '../src/domain/view';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { CriterionOutput } from '../src/domain/criteria';
import type { NotificationOutput } from '../src/modules/notifications/schemas';
import {
  eventLog,
  expectError,
  seedCard,
  seedCriterion,
  seedMember,
  seedWorkshop,
  type TestUser,
  errorOf,
} from './helpers/factories';
import { expectFieldsRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, cat, eve] = useUsers(t, 'Ada', 'Bob', 'Cat', 'Eve');

async function row(id: string) {
  const { workshops } = t.tables;
  return (await t.db.select().from(workshops).where(eq(workshops.id, id)))[0]!;
}

async function seedStep(workshopId: string, name: string, view: Partial<typeof DEFAULT_VIEW> = {}) {
  const [step] = await t.write(async (tx, { steps }) =>
    tx
      .insert(steps)
      .values({
        workshopId,
        position: 0,
        name,
        instructions: `Do ${name}`,
        prefs: DEFAULT_PREFS,
        view: { ...DEFAULT_VIEW, ...view },
      })
      .returning(),
  );
  return step!;
}

function notificationsOf(user: TestUser) {
  return t.db.select().from(t.tables.notifications).where(eq(t.tables.notifications.userId, user.id));
}

const put = (id: string, user: TestUser, body: unknown) =>
  t.request<WorkshopOutput>('PUT', `/v1/workshops/${id}`, { token: user.token, body });

describe('PUT /v1/workshops/:id', () => {
  it('updates settings, vote limits and view, and logs the changes', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Before' });
    const cluster = await seedCard(t, w.id, ada);
    const res = await put(w.id, ada, {
      title: 'After',
      description: 'New',
      daily_mail: false,
      force_sync: true,
      vote_limit: { positive: 5, max_negative: 1 },
      view: { sort: 'random', show_cluster_ids: [cluster.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'After',
      description: 'New',
      daily_mail: false,
      force_sync: true,
      change_step_notifications: true,
      vote_limit: { positive: 5, negative: -1, max_positive: 3, max_negative: 1 },
      view: { sort: 'random', show_cluster_ids: [cluster.id], card_status: 'active' },
    });
    expect(res.body.updated_at >= res.body.created_at).toBe(true);
    expect((await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: ada.token })).body).toEqual(
      res.body,
    );
    const [event] = await eventLog(t, w.id);
    expect(event!.action).toBe('updateWorkshop');
    expect(event!.userId).toBe(ada.id);
    expect(event!.change.changes).toEqual({
      title: ['Before', 'After'],
      description: ['', 'New'],
      daily_mail: [true, false],
      force_sync: [false, true],
      vote_limit: [
        { positive: -1, negative: -1, max_positive: 3, max_negative: 3 },
        { positive: 5, negative: -1, max_positive: 3, max_negative: 1 },
      ],
      view: [DEFAULT_VIEW, { ...DEFAULT_VIEW, sort: 'random', show_cluster_ids: [cluster.id] }],
    });
    expect(event!.change.workshop).toMatchObject({ id: w.id, title: 'After' });
  });

  it('logs nothing when nothing changes', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Same' });
    const res = await put(w.id, ada, { title: 'Same', view: { sort: 'position' } });
    expect(res.status).toBe(200);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('refuses bad values and changes nothing', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Kept' });
    const cases: Array<[unknown, string]> = [
      [{ vote_limit: { positive: -2 } }, 'vote_limit.positive'],
      [{ vote_limit: { negative: 1.5 } }, 'vote_limit.negative'],
      [{ vote_limit: { max_positive: 0 } }, 'vote_limit.max_positive'],
      [{ vote_limit: { max_negative: -1 } }, 'vote_limit.max_negative'],
      [{ state: 'paused' }, 'state'],
      [{ title: '' }, 'title'],
      [{ view: { card_status: 'hidden' } }, 'view.card_status'],
      [{ current_step_id: 42 }, 'current_step_id'],
    ];
    await expectFieldsRefused((body) => put(w.id, ada, body), cases);
    const other = await seedWorkshop(t, ada);
    const foreignStep = await seedStep(other.id, 'Elsewhere');
    const foreign = await put(w.id, ada, { title: 'Changed', current_step_id: foreignStep.id });
    expectError(foreign, 400, 'invalid_request');
    expect(errorOf(foreign).details?.[0]?.path).toBe('current_step_id');
    expect(await row(w.id)).toMatchObject({ title: 'Kept', currentStepId: null });
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('accepts view ids of this workshop only', async () => {
    const w = await seedWorkshop(t, ada);
    const other = await seedWorkshop(t, ada);
    const cluster = await seedCard(t, w.id, ada);
    const idea = await seedCard(t, w.id, ada, { parentId: cluster.id });
    const criterion = await seedCriterion(t, w.id);
    const foreignCluster = await seedCard(t, other.id, ada);
    const foreignCriterion = await seedCriterion(t, other.id);
    const cases: Array<[unknown, string]> = [
      [{ card: foreignCluster.id }, 'view.card'],
      [{ sort_criterium_id: foreignCriterion.id }, 'view.sort_criterium_id'],
      [{ show_cluster_ids: [cluster.id, foreignCluster.id] }, 'view.show_cluster_ids'],
      [{ show_cluster_ids: [idea.id] }, 'view.show_cluster_ids'],
    ];
    for (const [view, path] of cases) {
      const res = await put(w.id, ada, { view });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe(path);
    }
    expect(await eventLog(t, w.id)).toEqual([]);
    const ok = await put(w.id, ada, {
      view: {
        card: idea.id,
        sort: 'criterium_average',
        sort_criterium_id: criterion.id,
        show_clusters: 'multi',
        show_cluster_ids: [cluster.id, cluster.id],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.view).toMatchObject({
      card: idea.id,
      sort_criterium_id: criterion.id,
      show_cluster_ids: [cluster.id, cluster.id],
    });
    expect(
      (await put(w.id, ada, { view: { card: null, sort: 'position', sort_criterium_id: null } })).body.view,
    ).toMatchObject({ card: null, sort_criterium_id: null });
  });

  it('is for facilitators only', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Mine' });
    await seedMember(t, w.id, bob);
    expectError(await put(w.id, bob, { title: 'Theirs' }), 403, 'forbidden');
    expectError(await put(w.id, eve, { title: 'Theirs' }), 404, 'not_found');
    await seedMember(t, w.id, cat, 'facilitator');
    expect((await put(w.id, cat, { title: 'Co-facilitated' })).status).toBe(200);
    expect((await row(w.id)).title).toBe('Co-facilitated');
  });
});

describe('archiving', () => {
  it('refuses every write to an archived workshop until it runs again', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Archive me' });
    await seedMember(t, w.id, bob);
    const archived = await put(w.id, ada, { state: 'archived' });
    expect(archived.status).toBe(200);
    expect(archived.body.state).toBe('archived');
    expect((await eventLog(t, w.id)).at(-1)!.change.changes).toEqual({ state: ['running', 'archived'] });

    const events = (await eventLog(t, w.id)).length;
    expectError(await put(w.id, ada, { title: 'Nope' }), 409, 'workshop_archived');
    expectError(await put(w.id, ada, { state: 'archived' }), 409, 'workshop_archived');
    expectError(await put(w.id, bob, { state: 'running' }), 403, 'forbidden');
    expectError(
      await t.request<CriterionOutput>('POST', `/v1/workshops/${w.id}/criteria`, {
        token: ada.token,
        body: { title: 'x', scale: 1 },
      }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('DELETE', `/v1/workshops/${w.id}/votes`, { token: ada.token }),
      409,
      'workshop_archived',
    );
    expect((await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: bob.token })).status).toBe(200);
    expect(await eventLog(t, w.id)).toHaveLength(events);

    const restored = await put(w.id, ada, { state: 'running', title: 'Back' });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ state: 'running', title: 'Back' });
    expect((await eventLog(t, w.id)).at(-1)!.change.changes).toEqual({
      state: ['archived', 'running'],
      title: ['Archive me', 'Back'],
    });
  });

  it('issues a new access code when the old one was taken while archived', async () => {
    const w = await seedWorkshop(t, ada);
    const code = (await row(w.id)).accessCode;
    await put(w.id, ada, { state: 'archived' });
    const other = await seedWorkshop(t, bob, { accessCode: code });
    expect((await put(w.id, ada, { state: 'running' })).status).toBe(200);
    expect((await row(w.id)).accessCode).toMatch(/^\d{9}$/);
    expect((await row(w.id)).accessCode).not.toBe(code);
    expect((await row(other.id)).accessCode).toBe(code);

    const kept = await seedWorkshop(t, ada);
    const keptCode = (await row(kept.id)).accessCode;
    await put(kept.id, ada, { state: 'archived' });
    await put(kept.id, ada, { state: 'running' });
    expect((await row(kept.id)).accessCode).toBe(keptCode);
  });
});

describe('changing the current step', () => {
  it('copies the step view, logs changeStep and notifies the other members', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Stepping' });
    await seedMember(t, w.id, bob);
    await seedMember(t, w.id, cat, 'facilitator');
    const step = await seedStep(w.id, 'Vote', { sort: 'score', card_sub_view: 'votes' });
    const res = await put(w.id, ada, { current_step_id: step.id });
    expect(res.status).toBe(200);
    expect(res.body.current_step_id).toBe(step.id);
    expect(res.body.view).toEqual({ ...DEFAULT_VIEW, sort: 'score', card_sub_view: 'votes' });

    const log = await eventLog(t, w.id);
    expect(log.map((e) => e.action)).toEqual(['changeStep']);
    expect(log[0]!.change).toMatchObject({
      workshop: { id: w.id, current_step_id: step.id },
      step: { id: step.id, name: 'Vote', instructions: 'Do Vote' },
    });

    const expected = {
      workshop: { id: w.id, title: 'Stepping', public_url: `${t.deps.config.publicUrl}/workshops/${w.id}` },
      step: { id: step.id, name: 'Vote', instructions: 'Do Vote' },
      from: { id: ada.id, name: 'Ada', avatar_url: null, guest: false },
    };
    for (const user of [bob, cat]) {
      const mine = (await notificationsOf(user)).filter((n) => n.type === 'changeStep');
      expect(mine).toHaveLength(1);
      expect(mine[0]!.data).toEqual(expected);
    }
    expect((await notificationsOf(ada)).filter((n) => n.type === 'changeStep')).toEqual([]);
    const inbox = await t.request<NotificationOutput[]>('GET', '/v1/user/me/notifications', { token: bob.token });
    expect(inbox.body.find((n: { type: string }) => n.type === 'changeStep')).toMatchObject({
      type: 'changeStep',
      read: false,
      data: expected,
    });
  });

  it('lets explicit view members win and logs other changes separately', async () => {
    const w = await seedWorkshop(t, ada);
    const step = await seedStep(w.id, 'Rate', { sort: 'score', show: 'bars' });
    const res = await put(w.id, ada, { current_step_id: step.id, view: { show: 'bubbles' }, title: 'Renamed' });
    expect(res.body.view).toMatchObject({ sort: 'score', show: 'bubbles' });
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual(['updateWorkshop', 'changeStep']);
    expect((await eventLog(t, w.id))[0]!.change.changes).toEqual({
      title: ['Seeded workshop', 'Renamed'],
      view: [DEFAULT_VIEW, { ...DEFAULT_VIEW, show: 'bubbles' }],
    });
  });

  it('notifies nobody when change_step_notifications is off, and accepts null', async () => {
    const w = await seedWorkshop(t, ada, { changeStepNotifications: false });
    await seedMember(t, w.id, bob);
    const step = await seedStep(w.id, 'Quiet');
    const before = (await notificationsOf(bob)).length;
    expect((await put(w.id, ada, { current_step_id: step.id })).status).toBe(200);
    expect(await notificationsOf(bob)).toHaveLength(before);
    const cleared = await put(w.id, ada, { current_step_id: null });
    expect(cleared.body.current_step_id).toBeNull();
    expect(
      (await eventLog(t, w.id)).map((e) => [e.action, (e.change.step as { id: string } | null)?.id ?? null]),
    ).toEqual([
      ['changeStep', step.id],
      ['changeStep', null],
    ]);
  });
});
