import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS } from '../src/domain/permissions';
import { DEFAULT_VIEW } from '../src/domain/view';
import type { CriterionOutput } from '../src/domain/criteria';
import type { WorkshopOutput } from '../src/domain/workshops';
import {
  eventLog,
  expectError,
  seedCard,
  seedCriterion,
  seedCurrentStep,
  seedMember,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, eve] = useUsers(t, 'Ada', 'Bob', 'Eve');

const base = (workshopId: string) => `/v1/workshops/${workshopId}/criteria`;
const positions = async (workshopId: string) => {
  const { criteria } = t.tables;
  return (
    await t.db.select().from(criteria).where(eq(criteria.workshopId, workshopId)).orderBy(asc(criteria.position))
  ).map((c) => [c.title, c.position]);
};

async function seedRating(workshopId: string, criteriumId: string, user: TestUser, value: number) {
  const card = await seedCard(t, workshopId, ada);
  const [rating] = await t.write(async (tx, { ratings }) =>
    tx.insert(ratings).values({ workshopId, cardId: card.id, criteriumId, userId: user.id, value }).returning(),
  );
  return rating!;
}

describe('criteria', () => {
  it('creates criteria at the end, with their scale, and logs addCriterium', async () => {
    const w = await seedWorkshop(t, ada);
    const first = await t.request<CriterionOutput>('POST', base(w.id), {
      token: ada.token,
      body: { title: 'Impact', scale: 2 },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: first.body.id,
      title: 'Impact',
      scale: 2,
      current_scale: [0, 1, 3, 9],
      ratings: [],
    });
    const second = await t.request<CriterionOutput>('POST', base(w.id), {
      token: ada.token,
      body: { title: 'Effort', scale: 4 },
    });
    expect(second.body.current_scale).toEqual([0, 1, 2, 3, 4]);
    expect(await positions(w.id)).toEqual([
      ['Impact', 0],
      ['Effort', 1],
    ]);
    const log = await eventLog(t, w.id);
    expect(log.map((e) => [e.action, e.change])).toEqual([
      ['addCriterium', { criterium: first.body }],
      ['addCriterium', { criterium: second.body }],
    ]);
    const list = await t.request<CriterionOutput[]>('GET', base(w.id), { token: ada.token });
    expect(list.body.map((c: { title: string }) => c.title)).toEqual(['Impact', 'Effort']);
  });

  it('shows each criterion with the ratings the caller may see', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const criterion = await seedCriterion(t, w.id, { title: 'Fun', scale: 3 });
    const adas = await seedRating(w.id, criterion.id, ada, 5);
    const bobs = await seedRating(w.id, criterion.id, bob, 10);
    const one = await t.request<CriterionOutput>('GET', `${base(w.id)}/${criterion.id}`, { token: bob.token });
    expect(one.status).toBe(200);
    expect(one.body.ratings.map((r: { id: string }) => r.id).sort()).toEqual([adas.id, bobs.id].sort());
    expect(one.body.ratings.find((r: { id: string }) => r.id === bobs.id)).toEqual({
      id: bobs.id,
      value: 10,
      user_id: bob.id,
      criterium_id: criterion.id,
      card_id: bobs.cardId,
    });
    await seedCurrentStep(t, w.id, { allow_display_ratings: false });
    const hidden = await t.request<CriterionOutput>('GET', `${base(w.id)}/${criterion.id}`, { token: bob.token });
    expect(hidden.body.ratings.map((r: { id: string }) => r.id)).toEqual([bobs.id]);
    const list = await t.request<CriterionOutput[]>('GET', base(w.id), { token: bob.token });
    expect(list.body[0]!.ratings.map((r: { id: string }) => r.id)).toEqual([bobs.id]);
    expect((await t.request<CriterionOutput[]>('GET', base(w.id), { token: ada.token })).body[0]!.ratings).toHaveLength(
      2,
    );
  });

  it('renames a criterion and logs the change', async () => {
    const w = await seedWorkshop(t, ada);
    const criterion = await seedCriterion(t, w.id, { title: 'Old', scale: 1 });
    const res = await t.request<CriterionOutput>('PUT', `${base(w.id)}/${criterion.id}`, {
      token: ada.token,
      body: { title: 'New', scale: 4 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: criterion.id, title: 'New', scale: 1 });
    const [event] = await eventLog(t, w.id);
    expect(event!.action).toBe('updateCriterium');
    expect(event!.change).toMatchObject({
      criterium: { id: criterion.id, title: 'New' },
      changes: { title: ['Old', 'New'] },
    });
    expect(
      (await t.request<CriterionOutput>('PUT', `${base(w.id)}/${criterion.id}`, { token: ada.token, body: {} })).status,
    ).toBe(200);
    expect(await eventLog(t, w.id)).toHaveLength(1);
  });

  it('deletes a criterion with its ratings, re-packs positions and unhooks views sorted by it', async () => {
    const w = await seedWorkshop(t, ada);
    const [a, b, c] = [
      await seedCriterion(t, w.id, { title: 'A' }),
      await seedCriterion(t, w.id, { title: 'B' }),
      await seedCriterion(t, w.id, { title: 'C' }),
    ];
    await seedRating(w.id, b.id, ada, 1);
    const keep = await seedRating(w.id, a.id, ada, 1);
    const { db } = t;
    const { ratings, steps } = t.tables;
    const sorted = { ...DEFAULT_VIEW, sort: 'criterium_average' as const, sort_criterium_id: b.id };
    await t.write(async (tx, s) => tx.update(s.workshops).set({ view: sorted }).where(eq(s.workshops.id, w.id)));
    const [step] = await t.write(async (tx, s) =>
      tx
        .insert(s.steps)
        .values({ workshopId: w.id, position: 0, name: 'Rate', prefs: DEFAULT_PREFS, view: sorted })
        .returning(),
    );
    const [other] = await t.write(async (tx, s) =>
      tx
        .insert(s.steps)
        .values({
          workshopId: w.id,
          position: 1,
          name: 'Other',
          prefs: DEFAULT_PREFS,
          view: { ...DEFAULT_VIEW, sort_criterium_id: c.id },
        })
        .returning(),
    );

    const res = await t.request('DELETE', `${base(w.id)}/${b.id}`, { token: ada.token });
    expect(res.status).toBe(204);
    expect(await positions(w.id)).toEqual([
      ['A', 0],
      ['C', 1],
    ]);
    expect((await db.select().from(ratings).where(eq(ratings.workshopId, w.id))).map((r) => r.id)).toEqual([keep.id]);
    const workshop = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: ada.token });
    expect(workshop.body.view).toMatchObject({ sort: 'position', sort_criterium_id: null });
    expect((await db.select().from(steps).where(eq(steps.id, step!.id)))[0]!.view).toMatchObject({
      sort: 'position',
      sort_criterium_id: null,
    });
    expect((await db.select().from(steps).where(eq(steps.id, other!.id)))[0]!.view.sort_criterium_id).toBe(c.id);
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual(['removeCriterium', 'updateWorkshop', 'updateStep']);
    expect((await eventLog(t, w.id))[0]!.change).toEqual({
      criterium: { id: b.id, title: 'B', scale: 1, current_scale: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], ratings: [] },
    });
    expectError(
      await t.request<CriterionOutput>('GET', `${base(w.id)}/${b.id}`, { token: ada.token }),
      404,
      'not_found',
    );
  });

  it('refuses bad input and changes nothing', async () => {
    const w = await seedWorkshop(t, ada);
    const criterion = await seedCriterion(t, w.id, { title: 'Kept' });
    const cases: Array<[unknown, string]> = [
      [{ scale: 1 }, 'title'],
      [{ title: 'x' }, 'scale'],
      [{ title: 'x', scale: 5 }, 'scale'],
      [{ title: 'x', scale: 0 }, 'scale'],
      [{ title: 'x', scale: 1.5 }, 'scale'],
      [{ title: ' ', scale: 1 }, 'title'],
    ];
    await expectFieldsRefused(
      (body) => t.request<CriterionOutput>('POST', base(w.id), { token: ada.token, body }),
      cases,
    );
    expectError(
      await t.request<CriterionOutput>('PUT', `${base(w.id)}/${criterion.id}`, {
        token: ada.token,
        body: { title: '' },
      }),
      400,
      'invalid_request',
    );
    await expectRawBodyRefused(t, { path: base(w.id), token: ada.token }, { body: 'x', contentType: 'text/plain' });
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('lets members read and only facilitators write; strangers see nothing', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const criterion = await seedCriterion(t, w.id, { title: 'Kept' });
    const one = `${base(w.id)}/${criterion.id}`;
    expect((await t.request<CriterionOutput[]>('GET', base(w.id), { token: bob.token })).status).toBe(200);
    expectError(
      await t.request<CriterionOutput>('POST', base(w.id), { token: bob.token, body: { title: 'x', scale: 1 } }),
      403,
      'forbidden',
    );
    expectError(await t.request('PUT', one, { token: bob.token, body: { title: 'x' } }), 403, 'forbidden');
    expectError(await t.request('DELETE', one, { token: bob.token }), 403, 'forbidden');
    expectError(await t.request<CriterionOutput[]>('GET', base(w.id), { token: eve.token }), 404, 'not_found');
    expectError(await t.request('GET', one, { token: eve.token }), 404, 'not_found');
    expectError(
      await t.request<CriterionOutput>('POST', base(w.id), { token: eve.token, body: { title: 'x', scale: 1 } }),
      404,
      'not_found',
    );
    const other = await seedWorkshop(t, ada);
    expectError(await t.request('GET', `${base(other.id)}/${criterion.id}`, { token: ada.token }), 404, 'not_found');
    expectError(await t.request('DELETE', `${base(other.id)}/${criterion.id}`, { token: ada.token }), 404, 'not_found');
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('refuses writes to an archived workshop', async () => {
    const w = await seedWorkshop(t, ada, { state: 'archived' });
    const criterion = await seedCriterion(t, w.id, { title: 'Kept' });
    expectError(
      await t.request<CriterionOutput>('POST', base(w.id), { token: ada.token, body: { title: 'x', scale: 1 } }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request<CriterionOutput>('PUT', `${base(w.id)}/${criterion.id}`, {
        token: ada.token,
        body: { title: 'x' },
      }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('DELETE', `${base(w.id)}/${criterion.id}`, { token: ada.token }),
      409,
      'workshop_archived',
    );
    expect((await t.request<CriterionOutput[]>('GET', base(w.id), { token: ada.token })).status).toBe(200);
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});
