import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { eventsAfter } from '../src/modules/events/log';
import type { StepOutput } from '../src/domain/steps';
import type { EventOutput } from '../src/modules/events/schemas';
import {
  createUser,
  expectError,
  seedCurrentStep,
  seedEvent,
  seedWorkshop,
  seedWorkshopWith,
  errorOf,
} from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';
import { startTestServer } from './helpers/server';

const t = useServer();
const [facilitator, participant, colleague, stranger] = useUsers(t, 'Fay', 'Pat', 'Cole', 'Stan');

const newWorkshop = () => seedWorkshopWith(t, facilitator, [participant, colleague]);

const eventsPath = (workshopId: string) => `/v1/workshops/${workshopId}/events`;
const get = (workshopId: string, query = '', token = facilitator.token) =>
  t.request<EventOutput[]>('GET', `${eventsPath(workshopId)}${query}`, { token });
const actionsOf = (res: { body: EventOutput[] }) => res.body.map((e) => e.action);

/** `count` card events by the facilitator, numbered in their change. */
async function seedCards(workshopId: string, count: number) {
  for (let n = 1; n <= count; n++)
    await seedEvent(t, workshopId, 'addCard', facilitator.id, { card: { id: `c${n}`, title: `Card ${n}` } });
}

describe('GET /v1/workshops/:workshop_id/events', () => {
  it('lists events newest first with the acting user', async () => {
    const w = await newWorkshop();
    const step = await t.request<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, {
      token: facilitator.token,
      body: { name: 'Warm up' },
    });
    await t.request<StepOutput>('PUT', `/v1/workshops/${w.id}/steps/${step.body.id}`, {
      token: facilitator.token,
      body: { name: 'Warm-up' },
    });
    await seedEvent(t, w.id, 'addCard', participant.id, { card: { id: 'c1', title: 'Idea' } });
    await seedEvent(t, w.id, 'importCards', null, { count: 3 });

    const res = await get(w.id, '', participant.token);
    expect(res.status).toBe(200);
    expect(actionsOf(res)).toEqual(['importCards', 'addCard', 'updateStep', 'addStep']);
    expect(res.body[1]).toEqual({
      id: expect.any(String),
      seq: 3,
      action: 'addCard',
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      change: { card: { id: 'c1', title: 'Idea' } },
      user: {
        id: participant.id,
        email: participant.email,
        name: 'Pat',
        guest: false,
        avatar_url: null,
        plan: { name: 'free', workshops_max_attendees: 100 },
        admin: false,
        created_at: expect.any(String),
        confirmed_at: null,
        updated_at: expect.any(String),
      },
      api_token: null,
    });
    expect(res.body[0]!.user).toBeNull();
    expect(res.body[2]!.change).toEqual({
      step: { ...step.body, name: 'Warm-up' },
      changes: { name: ['Warm up', 'Warm-up'] },
    });
    expect(res.body[3]!.change).toEqual({ step: step.body });
    expect(res.body[3]!.user?.id).toBe(facilitator.id);
    expect(res.headers.get('x-total-count')).toBe('4');
  });

  it('keeps only the actions named in filters', async () => {
    const w = await newWorkshop();
    const step = await t.request<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, {
      token: facilitator.token,
      body: { name: 'A' },
    });
    await seedCards(w.id, 2);
    await t.request('DELETE', `/v1/workshops/${w.id}/steps/${step.body.id}`, { token: facilitator.token });

    const steps = await get(w.id, '?filters=addStep,removeStep');
    expect(actionsOf(steps)).toEqual(['removeStep', 'addStep']);
    expect(steps.headers.get('x-total-count')).toBe('2');
    expect(actionsOf(await get(w.id, '?filters=%20addCard%20,,'))).toEqual(['addCard', 'addCard']);
    expect((await get(w.id, '?filters=neverHappened')).body).toEqual([]);
    expect(actionsOf(await get(w.id, '?filters='))).toHaveLength(4);

    const bad = await get(w.id, '?filters=addCard;drop table');
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('filters');
  });

  it('pages with exact X-Total-Count and Link headers, keeping the other query members', async () => {
    const w = await newWorkshop();
    await seedCards(w.id, 7);
    await seedEvent(t, w.id, 'addStep', facilitator.id, { step: { id: 's1' } });
    const base = `${t.url}${eventsPath(w.id)}`;

    const middle = await get(w.id, '?filters=addCard&per_page=2&page=2');
    expect(middle.status).toBe(200);
    expect(middle.body.map((e: any) => e.change.card.id)).toEqual(['c5', 'c4']);
    expect(middle.headers.get('x-total-count')).toBe('7');
    expect(middle.headers.get('link')).toBe(
      [
        `<${base}?filters=addCard&per_page=2&page=1>; rel="first"`,
        `<${base}?filters=addCard&per_page=2&page=1>; rel="prev"`,
        `<${base}?filters=addCard&per_page=2&page=3>; rel="next"`,
        `<${base}?filters=addCard&per_page=2&page=4>; rel="last"`,
      ].join(', '),
    );

    const last = await get(w.id, '?filters=addCard&per_page=2&page=4');
    expect(last.body.map((e: any) => e.change.card.id)).toEqual(['c1']);
    expect(last.headers.get('link')).toBe(
      [
        `<${base}?filters=addCard&per_page=2&page=1>; rel="first"`,
        `<${base}?filters=addCard&per_page=2&page=3>; rel="prev"`,
        `<${base}?filters=addCard&per_page=2&page=4>; rel="last"`,
      ].join(', '),
    );

    const beyond = await get(w.id, '?per_page=2&page=9');
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe('8');
    expect(beyond.headers.get('link')).toBe(
      `<${base}?per_page=2&page=1>; rel="first", <${base}?per_page=2&page=4>; rel="prev", <${base}?per_page=2&page=4>; rel="last"`,
    );

    const first = await get(w.id);
    expect(first.body).toHaveLength(8);
    expect(first.headers.get('link')).toBe(
      `<${base}?page=1&per_page=30>; rel="first", <${base}?page=1&per_page=30>; rel="last"`,
    );

    const empty = await newWorkshop();
    const none = await get(empty.id);
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-total-count')).toBe('0');
  });

  it('serves 30 by default and at most 100 a page', async () => {
    const w = await newWorkshop();
    await seedCards(w.id, 130);
    expect((await get(w.id)).body).toHaveLength(30);
    const big = await get(w.id, '?per_page=500');
    expect(big.status).toBe(200);
    expect(big.body).toHaveLength(100);
    expect((big.body[0]!.change.card as { id: string }).id).toBe('c130');
    expect(big.headers.get('x-total-count')).toBe('130');
    expect(big.headers.get('link')).toContain('per_page=100&page=2>; rel="next"');
    expect((await get(w.id, '?per_page=500&page=2')).body).toHaveLength(30);
  });

  it('refuses bad paging values', async () => {
    const w = await newWorkshop();
    for (const [query, path] of [
      ['?per_page=0', 'per_page'],
      ['?per_page=-5', 'per_page'],
      ['?per_page=2.5', 'per_page'],
      ['?per_page=ten', 'per_page'],
      ['?page=0', 'page'],
      ['?page=1.5', 'page'],
      ['?page=', 'page'],
    ] as const) {
      const res = await get(w.id, query);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path, query).toBe(path);
    }
  });

  it('builds links from the configured public URL', async () => {
    const other = await startTestServer({ publicUrl: 'https://workshops.example.org' });
    try {
      const owner = await createUser(other, 'Owner');
      const w = await seedWorkshop(other, owner);
      for (let i = 0; i < 3; i++) await seedEvent(other, w.id, 'addCard', owner.id, { card: { id: `c${i}` } });
      const res = await other.request('GET', `${eventsPath(w.id)}?per_page=1`, { token: owner.token });
      expect(res.headers.get('link')).toBe(
        [
          `<https://workshops.example.org${eventsPath(w.id)}?per_page=1&page=1>; rel="first"`,
          `<https://workshops.example.org${eventsPath(w.id)}?per_page=1&page=2>; rel="next"`,
          `<https://workshops.example.org${eventsPath(w.id)}?per_page=1&page=3>; rel="last"`,
        ].join(', '),
      );
    } finally {
      await other.close();
    }
  });

  it('is for members only, and stays readable in an archived workshop', async () => {
    const w = await newWorkshop();
    await seedCards(w.id, 1);
    expectError(await get(w.id, '', stranger.token), 404, 'not_found');
    expectError(await get('no-such-workshop'), 404, 'not_found');
    expectError(await t.request('GET', eventsPath(w.id)), 401, 'unauthenticated');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expect(actionsOf(await get(w.id, '', participant.token))).toEqual(['addCard']);
  });
});

describe('events hidden by display prefs', () => {
  /** Votes and ratings by the participant and their colleague, one removed by the facilitator, and a bulk removal. */
  async function seedFeedback(workshopId: string) {
    await seedEvent(t, workshopId, 'addVote', participant.id, {
      vote: { id: 'v1', value: 1, user_id: participant.id, card_id: 'c1' },
    });
    await seedEvent(t, workshopId, 'addVote', colleague.id, {
      vote: { id: 'v2', value: 2, user_id: colleague.id, card_id: 'c1' },
    });
    await seedEvent(t, workshopId, 'updateVote', colleague.id, {
      vote: { id: 'v2', value: 1, user_id: colleague.id, card_id: 'c1' },
      changes: { value: [2, 1] },
    });
    await seedEvent(t, workshopId, 'removeVote', facilitator.id, {
      vote: { id: 'v1', value: 1, user_id: participant.id, card_id: 'c1' },
    });
    await seedEvent(t, workshopId, 'addRating', participant.id, {
      rating: { id: 'r1', value: 3, user_id: participant.id, criterium_id: 'k', card_id: 'c1' },
    });
    await seedEvent(t, workshopId, 'addRating', colleague.id, {
      rating: { id: 'r2', value: 5, user_id: colleague.id, criterium_id: 'k', card_id: 'c1' },
    });
    await seedEvent(t, workshopId, 'removeVotes', facilitator.id, { count: 1 });
  }
  const ids = (res: { body: EventOutput[] }) =>
    res.body.map((e) => `${e.action}:${((e.change.vote ?? e.change.rating) as { id: string } | undefined)?.id ?? '-'}`);
  const everything = [
    'removeVotes:-',
    'addRating:r2',
    'addRating:r1',
    'removeVote:v1',
    'updateVote:v2',
    'addVote:v2',
    'addVote:v1',
  ];

  it("hides other users' vote events from participants when the step hides votes", async () => {
    const w = await newWorkshop();
    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    await seedFeedback(w.id);

    const mine = await get(w.id, '', participant.token);
    expect(ids(mine)).toEqual(['removeVotes:-', 'addRating:r2', 'addRating:r1', 'removeVote:v1', 'addVote:v1']);
    expect(mine.headers.get('x-total-count')).toBe('5');
    expect(ids(await get(w.id, '?filters=addVote,updateVote', colleague.token))).toEqual([
      'updateVote:v2',
      'addVote:v2',
    ]);
    expect(ids(await get(w.id))).toEqual(everything);
  });

  it("hides other users' rating events when the step hides ratings", async () => {
    const w = await newWorkshop();
    await seedCurrentStep(t, w.id, { allow_display_ratings: false });
    await seedFeedback(w.id);
    expect(ids(await get(w.id, '', participant.token))).toEqual(everything.filter((e) => e !== 'addRating:r2'));
    expect(ids(await get(w.id, '?filters=addRating', colleague.token))).toEqual(['addRating:r2']);
    expect(ids(await get(w.id))).toEqual(everything);
  });

  it('shows everything when the current step displays votes and ratings', async () => {
    const w = await newWorkshop();
    await seedCurrentStep(t, w.id, {});
    await seedFeedback(w.id);
    expect(ids(await get(w.id, '', participant.token))).toEqual(everything);
  });
});

describe('eventsAfter', () => {
  it('returns the events after a sequence number, oldest first, up to a limit', async () => {
    const w = await newWorkshop();
    await seedCards(w.id, 5);
    const { db } = t;
    expect((await eventsAfter(db, w.id, 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    const missed = await eventsAfter(db, w.id, 2, 2);
    expect(missed.map((e) => e.seq)).toEqual([3, 4]);
    expect(missed[0]).toEqual({
      id: expect.any(String),
      workshopId: w.id,
      seq: 3,
      action: 'addCard',
      userId: facilitator.id,
      cardUserId: null,
      change: { card: { id: 'c3', title: 'Card 3' } },
      createdAt: expect.any(String),
    });
    expect(await eventsAfter(db, w.id, 5, 10)).toEqual([]);
    expect(await eventsAfter(db, 'other-workshop', 0, 10)).toEqual([]);
  });
});
