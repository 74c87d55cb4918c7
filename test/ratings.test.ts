import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { RatingOutput } from '../src/domain/ratings';
import {
  eventLog,
  expectError,
  seedCriterion,
  seedCurrentStep,
  seedWorkshop,
  type TestUser,
  seedCardScene,
  errorOf,
} from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useCast } from './helpers/cast';

const cast = useCast();
const { facilitator, participant, other, stranger } = cast;
const t = cast.t;

/** A workshop with a cluster, two criteria (scales 1 and 2), the facilitator and two participants. */
async function scene() {
  const { workshop, card, path } = await seedCardScene(cast, 'ratings');
  const impact = await seedCriterion(t, workshop.id, { title: 'Impact', scale: 1 });
  const effort = await seedCriterion(t, workshop.id, { title: 'Effort', scale: 2 });
  return { workshop, card, impact, effort, path };
}

const rate = (path: string, user: TestUser, body: unknown) =>
  t.request<RatingOutput>('POST', path, { token: user.token, body });
const ratingRows = (workshopId: string) =>
  t.db.select().from(t.tables.ratings).where(eq(t.tables.ratings.workshopId, workshopId));

describe('ratings', () => {
  it('rates, reads, filters, changes and removes a rating, logging each change', async () => {
    const s = await scene();
    const created = await rate(s.path, participant, { value: 7, criterium_id: s.impact.id });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      value: 7,
      user_id: participant.id,
      criterium_id: s.impact.id,
      card_id: s.card.id,
    });
    const second = await rate(s.path, participant, { value: 9, criterium_id: s.effort.id });
    expect(second.status).toBe(201);

    expect((await t.request('GET', s.path, { token: other.token })).body).toEqual([created.body, second.body]);
    expect((await t.request('GET', `${s.path}?criterium_id=${s.effort.id}`, { token: other.token })).body).toEqual([
      second.body,
    ]);
    expect((await t.request('GET', `${s.path}?criterium_id=unknown`, { token: other.token })).body).toEqual([]);
    expect((await t.request('GET', `${s.path}/${created.body.id}`, { token: facilitator.token })).body).toEqual(
      created.body,
    );

    const updated = await t.request<RatingOutput>('PUT', `${s.path}/${created.body.id}`, {
      token: participant.token,
      body: { value: 10 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, value: 10 });
    expect((await t.request('DELETE', `${s.path}/${created.body.id}`, { token: participant.token })).status).toBe(204);
    expectError(await t.request('GET', `${s.path}/${created.body.id}`, { token: participant.token }), 404, 'not_found');

    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addRating', 'addRating', 'updateRating', 'removeRating']);
    expect(log[0]!.change).toEqual({ rating: created.body });
    expect(log[2]!.change).toEqual({ rating: updated.body, changes: { value: [7, 10] } });
    expect(log[3]!.change).toEqual({ rating: updated.body });
    expect((await ratingRows(s.workshop.id)).map((r) => r.id)).toEqual([second.body.id]);
  });

  it('allows one rating per user, card and criterion', async () => {
    const s = await scene();
    const first = await rate(s.path, participant, { value: 1, criterium_id: s.impact.id });
    expectError(await rate(s.path, participant, { value: 2, criterium_id: s.impact.id }), 409, 'already_rated');
    expect((await rate(s.path, other, { value: 2, criterium_id: s.impact.id })).status).toBe(201);
    await t.request('DELETE', `${s.path}/${first.body.id}`, { token: participant.token });
    expect((await rate(s.path, participant, { value: 3, criterium_id: s.impact.id })).status).toBe(201);
    expect((await eventLog(t, s.workshop.id)).map((e) => e.action)).toEqual([
      'addRating',
      'addRating',
      'removeRating',
      'addRating',
    ]);
  });

  it('answers already_rated, not a 500, when many identical ratings race', async () => {
    const s = await scene();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => rate(s.path, participant, { value: 1, criterium_id: s.impact.id })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && errorOf(r).code === 'already_rated')).toHaveLength(19);
  });

  it('refuses values off the scale and criteria of other workshops with 400, changing nothing', async () => {
    const s = await scene();
    const foreign = await seedCriterion(t, (await seedWorkshop(t, facilitator)).id);
    const cases: Array<[unknown, string]> = [
      [{ value: 2, criterium_id: s.effort.id }, 'value'], // scale 2 is 0, 1, 3, 9
      [{ value: 11, criterium_id: s.impact.id }, 'value'],
      [{ value: -1, criterium_id: s.impact.id }, 'value'],
      [{ value: 1.5, criterium_id: s.impact.id }, 'value'],
      [{ value: '3', criterium_id: s.impact.id }, 'value'],
      [{ criterium_id: s.impact.id }, 'value'],
      [{ value: 3, criterium_id: foreign.id }, 'criterium_id'],
      [{ value: 3, criterium_id: 'unknown' }, 'criterium_id'],
      [{ value: 3 }, 'criterium_id'],
    ];
    await expectFieldsRefused((body) => rate(s.path, participant, body), cases);
    await expectRawBodyRefused(
      t,
      { path: s.path, token: participant.token },
      { body: 'value=1', contentType: 'text/plain' },
    );
    const kept = await rate(s.path, participant, { value: 3, criterium_id: s.effort.id });
    const put = await t.request<RatingOutput>('PUT', `${s.path}/${kept.body.id}`, {
      token: participant.token,
      body: { value: 4 },
    });
    expectError(put, 400, 'invalid_request');
    expect(errorOf(put).details?.[0]?.path).toBe('value');
    expectError(
      await t.request('GET', `${s.path}?criterium_id=`, { token: participant.token }),
      400,
      'invalid_request',
    );
    expect((await ratingRows(s.workshop.id)).map((r) => r.value)).toEqual([3]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });

  it('answers 404 to strangers and for cards or ratings outside the workshop', async () => {
    const s = await scene();
    const elsewhere = await scene();
    const mine = await rate(s.path, participant, { value: 3, criterium_id: s.impact.id });
    expectError(await t.request('GET', s.path, { token: stranger.token }), 404, 'not_found');
    expectError(await rate(s.path, stranger, { value: 3, criterium_id: s.impact.id }), 404, 'not_found');
    expectError(await t.request('GET', `${s.path}/${mine.body.id}`, { token: stranger.token }), 404, 'not_found');
    expectError(
      await rate(`/v1/workshops/${s.workshop.id}/cards/${elsewhere.card.id}/ratings`, participant, {
        value: 3,
        criterium_id: s.impact.id,
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('GET', `${elsewhere.path}/${mine.body.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('PUT', `${s.path}/unknown`, { token: participant.token, body: { value: 1 } }),
      404,
      'not_found',
    );
    expect(await ratingRows(elsewhere.workshop.id)).toHaveLength(0);
  });

  it('follows the current step, and lets participants change only their own ratings', async () => {
    const s = await scene();
    const pats = await rate(s.path, participant, { value: 3, criterium_id: s.impact.id });
    expectError(
      await t.request('PUT', `${s.path}/${pats.body.id}`, { token: other.token, body: { value: 4 } }),
      403,
      'forbidden',
    );
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: other.token }), 403, 'forbidden');

    await seedCurrentStep(t, s.workshop.id, { allow_rate: false });
    expectError(await rate(s.path, other, { value: 3, criterium_id: s.impact.id }), 403, 'forbidden');
    expectError(
      await t.request('PUT', `${s.path}/${pats.body.id}`, { token: participant.token, body: { value: 4 } }),
      403,
      'forbidden',
    );
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: participant.token }), 403, 'forbidden');

    const changed = await t.request<RatingOutput>('PUT', `${s.path}/${pats.body.id}`, {
      token: facilitator.token,
      body: { value: 4 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.user_id).toBe(participant.id);
    expect((await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: facilitator.token })).status).toBe(204);
    expect((await eventLog(t, s.workshop.id)).map((e) => [e.action, e.userId])).toEqual([
      ['addRating', participant.id],
      ['updateRating', facilitator.id],
      ['removeRating', facilitator.id],
    ]);
  });

  it('refuses writes to an archived workshop with 409', async () => {
    const s = await scene();
    const kept = await rate(s.path, participant, { value: 3, criterium_id: s.impact.id });
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, s.workshop.id)),
    );
    for (const user of [participant, facilitator]) {
      expectError(await rate(s.path, user, { value: 3, criterium_id: s.effort.id }), 409, 'workshop_archived');
      expectError(
        await t.request('PUT', `${s.path}/${kept.body.id}`, { token: user.token, body: { value: 4 } }),
        409,
        'workshop_archived',
      );
      expectError(
        await t.request('DELETE', `${s.path}/${kept.body.id}`, { token: user.token }),
        409,
        'workshop_archived',
      );
    }
    expect((await t.request('GET', s.path, { token: participant.token })).body).toEqual([kept.body]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });

  it('shows participants only their own ratings when the step hides ratings', async () => {
    const s = await scene();
    const pats = await rate(s.path, participant, { value: 3, criterium_id: s.impact.id });
    const ottos = await rate(s.path, other, { value: 5, criterium_id: s.impact.id });
    await seedCurrentStep(t, s.workshop.id, { allow_display_ratings: false });
    expect((await t.request('GET', s.path, { token: participant.token })).body).toEqual([pats.body]);
    expect((await t.request('GET', `${s.path}?criterium_id=${s.impact.id}`, { token: other.token })).body).toEqual([
      ottos.body,
    ]);
    expectError(await t.request('GET', `${s.path}/${ottos.body.id}`, { token: participant.token }), 404, 'not_found');
    expect((await t.request('GET', s.path, { token: facilitator.token })).body).toEqual([pats.body, ottos.body]);
  });
});
