import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CardDetailOutput } from '../src/modules/cards/schemas';
import type { CardOutput } from '../src/domain/cards';
import {
  expectError,
  seedCard,
  seedCurrentStep,
  seedWorkshop,
  type TestUser,
  seedWorkshopWith,
  errorOf,
  inTurn,
} from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';
import { startTestServer } from './helpers/server';
import type { OpenApiDocument } from './helpers/openapi';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

/** A running workshop with the facilitator and the participant as members. */
const workshop = () => seedWorkshopWith(t, facilitator, [participant]);

const cardsPath = (workshopId: string) => `/v1/workshops/${workshopId}/cards`;

async function eventCount(workshopId: string) {
  const { events } = t.tables;
  return (await t.db.select().from(events).where(eq(events.workshopId, workshopId))).length;
}

/** The workshop's events, oldest first. */
function eventLog(workshopId: string) {
  const { events } = t.tables;
  return t.db.select().from(events).where(eq(events.workshopId, workshopId)).orderBy(asc(events.seq));
}

function cardRows(workshopId: string) {
  const { cards } = t.tables;
  return t.db.select().from(cards).where(eq(cards.workshopId, workshopId));
}

/** Positions of each stack (clusters, and the ideas of each cluster) as stored. */
async function stacks(workshopId: string) {
  const byStack = new Map<string, Array<{ title: string; position: number }>>();
  for (const row of await cardRows(workshopId)) {
    const key = row.parentId ?? 'clusters';
    byStack.set(key, [...(byStack.get(key) ?? []), { title: row.title, position: row.position }]);
  }
  return byStack;
}

async function expectPacked(workshopId: string) {
  for (const [stack, list] of await stacks(workshopId)) {
    expect(
      list.map((c) => c.position).sort((a, b) => a - b),
      `stack ${stack}`,
    ).toEqual(list.map((_, i) => i));
  }
}

async function create(workshopId: string, user: TestUser, body: Record<string, unknown>) {
  return t.request<CardOutput>('POST', cardsPath(workshopId), { token: user.token, body });
}

async function titlesIn(workshopId: string, user: TestUser, parent?: string) {
  const res = await t.request<CardOutput[]>('GET', `${cardsPath(workshopId)}${parent ? `?parent=${parent}` : ''}`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.map((c) => c.title);
}

describe('POST /cards', () => {
  it('creates clusters and ideas with short ids, positions and an addCard event', async () => {
    const w = await workshop();
    const cluster = await create(w.id, facilitator, { type: 'cluster', title: 'Cluster', color: 'blue', content: 'c' });
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
    expect(cluster.body).toEqual({
      id: expect.any(String),
      short_id: '1',
      type: 'cluster',
      title: 'Cluster',
      content: 'c',
      aside: false,
      summary: { score: 0, comments: 0, sections: {}, attachments: 0 },
      user_id: facilitator.id,
      author_visibility: 'shown',
      position: 0,
      parent: null,
      color: 'blue',
    });
    const idea = await create(w.id, participant, { title: '  Idea  ', parent: cluster.body.id, aside: true });
    expect(idea.status).toBe(201);
    expect(idea.body).toMatchObject({
      short_id: '2',
      type: 'idea',
      title: 'Idea',
      content: '',
      aside: true,
      parent: cluster.body.id,
      color: null,
      position: 0,
      user_id: participant.id,
    });

    const event = (await eventLog(w.id)).at(-1)!;
    expect(event.action).toBe('addCard');
    expect(event.userId).toBe(participant.id);
    expect((event.change as any).card).toEqual(idea.body);
  });

  it('never reuses a short id', async () => {
    const w = await workshop();
    const first = await create(w.id, facilitator, { type: 'cluster', title: 'A' });
    expect(
      (await t.request('DELETE', `${cardsPath(w.id)}/${first.body.id}`, { token: facilitator.token })).status,
    ).toBe(204);
    const second = await create(w.id, facilitator, { type: 'cluster', title: 'B' });
    expect(second.body.short_id).toBe('2');
  });

  it('inserts at a given position and keeps positions 0..n-1', async () => {
    const w = await workshop();
    for (const title of ['A', 'B', 'C']) await create(w.id, facilitator, { type: 'cluster', title });
    await create(w.id, facilitator, { type: 'cluster', title: 'First', position: 0 });
    await create(w.id, facilitator, { type: 'cluster', title: 'Middle', position: 2 });
    await create(w.id, facilitator, { type: 'cluster', title: 'Far', position: 99 });
    expect(await titlesIn(w.id, facilitator)).toEqual(['First', 'A', 'Middle', 'B', 'C', 'Far']);
    await expectPacked(w.id);
  });

  it('refuses bad input with 400 and details, and records nothing', async () => {
    const w = await workshop();
    const other = await seedWorkshop(t, facilitator);
    const otherCluster = await seedCard(t, other.id, facilitator, { type: 'cluster' });
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'No parent' }, 'parent'],
      [{ type: 'idea', title: 'Null parent', parent: null }, 'parent'],
      [{ type: 'cluster', title: 'With parent', parent: cluster.id }, 'parent'],
      [{ title: 'Foreign parent', parent: otherCluster.id }, 'parent'],
      [{ title: 'Unknown parent', parent: 'nope' }, 'parent'],
      [{ title: 'Idea parent', parent: idea.id }, 'parent'],
      [{ title: 'Colored idea', parent: cluster.id, color: 'red' }, 'color'],
      [{ type: 'cluster', title: 'Bad color', color: 'pink' }, 'color'],
      [{ type: 'cluster' }, 'title'],
      [{ type: 'cluster', title: '   ' }, 'title'],
      [{ type: 'note', title: 'x' }, 'type'],
      [{ type: 'cluster', title: 'x', position: -1 }, 'position'],
      [{ type: 'cluster', title: 'x', position: 1.5 }, 'position'],
      [{ type: 'cluster', title: 'x', aside: 'yes' }, 'aside'],
    ];
    const before = await eventCount(w.id);
    for (const [body, path] of cases) {
      const res = await create(w.id, facilitator, body);
      expectError(res, 400, 'invalid_request');
      expect(
        errorOf(res).details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    await expectRawBodyRefused(
      t,
      { path: cardsPath(w.id), token: facilitator.token },
      { body: '{"title":', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { path: cardsPath(w.id), token: facilitator.token },
      { body: 'title=x', contentType: 'text/plain' },
    );
    expect(await cardRows(w.id)).toHaveLength(2);
    expect(await eventCount(w.id)).toBe(before);
    expect(
      (await t.db.select().from(t.tables.workshops).where(eq(t.tables.workshops.id, w.id)))[0]!.lastCardNumber,
    ).toBe(2);
  });

  it('follows the current step: add_idea / add_cluster for participants, 404 for strangers, 409 when archived', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await seedCurrentStep(t, w.id, { allow_add_idea: false, allow_add_cluster: false });
    expectError(await create(w.id, participant, { title: 'x', parent: cluster.id }), 403, 'forbidden');
    expectError(await create(w.id, participant, { type: 'cluster', title: 'x' }), 403, 'forbidden');
    expect((await create(w.id, facilitator, { title: 'x', parent: cluster.id })).status).toBe(201);
    await seedCurrentStep(t, w.id, { allow_add_idea: true, allow_add_cluster: false });
    expect((await create(w.id, participant, { title: 'y', parent: cluster.id })).status).toBe(201);
    expectError(await create(w.id, participant, { type: 'cluster', title: 'x' }), 403, 'forbidden');

    expectError(await create(w.id, stranger, { title: 'x', parent: cluster.id }), 404, 'not_found');
    expectError(await create('missing', facilitator, { type: 'cluster', title: 'x' }), 404, 'not_found');

    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    const before = await eventCount(w.id);
    expectError(await create(w.id, facilitator, { type: 'cluster', title: 'x' }), 409, 'workshop_archived');
    expect(await cardRows(w.id)).toHaveLength(3);
    expect(await eventCount(w.id)).toBe(before);
  });
});

describe('GET /cards', () => {
  async function listed(w: { id: string }, query = '', user = facilitator) {
    const res = await t.request<CardOutput[]>('GET', `${cardsPath(w.id)}${query}`, { token: user.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as any[];
  }

  it('lists clusters by position, each followed by its ideas, and filters', async () => {
    const w = await workshop();
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    await t.write(async (tx, { cards }) => {
      await tx.update(cards).set({ position: 1 }).where(eq(cards.id, b.id));
      await tx.update(cards).set({ position: 0 }).where(eq(cards.id, a.id));
    });
    await seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b1' });
    await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a1' });
    await seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b2', aside: true });
    await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a2' });

    expect((await listed(w)).map((c) => c.title)).toEqual(['A', 'a1', 'a2', 'B', 'b1', 'b2']);
    expect((await listed(w, '?type=cluster')).map((c) => c.title)).toEqual(['A', 'B']);
    expect((await listed(w, '?type=idea')).map((c) => c.title)).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect((await listed(w, `?parent=${b.id}`)).map((c) => c.title)).toEqual(['b1', 'b2']);
    expect((await listed(w, '?aside=true')).map((c) => c.title)).toEqual(['b2']);
    expect((await listed(w, '?aside=false&type=idea')).map((c) => c.title)).toEqual(['a1', 'a2', 'b1']);
    expect(await listed(w, '?parent=unknown')).toEqual([]);
    expect((await listed(w, '', participant)).length).toBe(6);
  });

  it('answers bad filters with 400 and strangers with 404', async () => {
    const w = await workshop();
    for (const query of ['?type=note', '?aside=maybe', '?parent=', '?type=idea&type=cluster']) {
      const res = await t.request('GET', `${cardsPath(w.id)}${query}`, { token: facilitator.token });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.length).toBeGreaterThan(0);
    }
    expectError(await t.request('GET', cardsPath(w.id), { token: stranger.token }), 404, 'not_found');
    expectError(await t.request('GET', cardsPath(w.id)), 401, 'unauthenticated');
  });

  it('summarizes votes, comments, items and attachments; score follows allow_display_votes', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const section = await t.write(async (tx, { attachments, comments, items, sections, votes }) => {
      await tx.insert(votes).values([
        { workshopId: w.id, cardId: idea.id, userId: facilitator.id, value: 3 },
        { workshopId: w.id, cardId: idea.id, userId: participant.id, value: 2 },
        { workshopId: w.id, cardId: idea.id, userId: participant.id, value: -1 },
        { workshopId: w.id, cardId: cluster.id, userId: facilitator.id, value: -2 },
      ]);
      const [section] = await tx.insert(sections).values({ workshopId: w.id, title: 'Pros', position: 0 }).returning();
      await tx.insert(items).values([
        { workshopId: w.id, cardId: idea.id, sectionId: section!.id, userId: participant.id, content: 'one' },
        { workshopId: w.id, cardId: idea.id, sectionId: section!.id, userId: participant.id, content: 'two' },
      ]);
      await tx.insert(comments).values({ workshopId: w.id, cardId: idea.id, userId: participant.id, content: 'hi' });
      await tx.insert(attachments).values({
        id: 'att1',
        workshopId: w.id,
        cardId: idea.id,
        userId: participant.id,
        name: 'a.png',
        fileKey: 'k',
        container: 'c',
        mimetype: 'image/png',
        size: 3,
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      return section!;
    });

    const all = await listed(w);
    expect(all[1].summary).toEqual({ score: 4, comments: 1, sections: { [section.id]: 2 }, attachments: 1 });
    expect(all[0].summary).toEqual({ score: -2, comments: 0, sections: {}, attachments: 0 });
    const one = await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${idea.id}`, { token: participant.token });
    expect(one.body.summary.score).toBe(4);

    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    expect((await listed(w, '', participant))[1].summary.score).toBe(1);
    expect((await listed(w, '?type=idea', participant))[0].summary.score).toBe(1);
    expect((await listed(w, '', participant))[0].summary.score).toBe(0);
    expect(
      (await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${idea.id}`, { token: participant.token })).body
        .summary.score,
    ).toBe(1);
    expect((await listed(w, '', facilitator))[1].summary.score).toBe(4);
  });
});

describe('GET /cards/:id', () => {
  it('adds sections and criteria on request, with ratings per allow_display_ratings', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const other = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const { pros, cons, item, impact, mine, theirs } = await t.write(
      async (tx, { criteria, items, ratings, sections }) => {
        const [pros] = await tx.insert(sections).values({ workshopId: w.id, title: 'Pros', position: 0 }).returning();
        const [cons] = await tx.insert(sections).values({ workshopId: w.id, title: 'Cons', position: 1 }).returning();
        const [item] = await tx
          .insert(items)
          .values({ workshopId: w.id, cardId: idea.id, sectionId: cons!.id, userId: participant.id, content: 'costly' })
          .returning();
        await tx.insert(items).values({
          workshopId: w.id,
          cardId: other.id,
          sectionId: pros!.id,
          userId: participant.id,
          content: 'elsewhere',
        });
        const [impact] = await tx
          .insert(criteria)
          .values({ workshopId: w.id, title: 'Impact', scale: 3, position: 0 })
          .returning();
        const [mine] = await tx
          .insert(ratings)
          .values({ workshopId: w.id, cardId: idea.id, criteriumId: impact!.id, userId: participant.id, value: 5 })
          .returning();
        const [theirs] = await tx
          .insert(ratings)
          .values({ workshopId: w.id, cardId: idea.id, criteriumId: impact!.id, userId: facilitator.id, value: 10 })
          .returning();
        await tx
          .insert(ratings)
          .values({ workshopId: w.id, cardId: other.id, criteriumId: impact!.id, userId: facilitator.id, value: 0 });
        return { pros: pros!, cons: cons!, item: item!, impact: impact!, mine: mine!, theirs: theirs! };
      },
    );

    const plain = await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${idea.id}`, {
      token: participant.token,
    });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('sections');
    expect(plain.body).not.toHaveProperty('criteria');
    expect(plain.body.summary.sections).toEqual({ [cons.id]: 1 });

    const full = await t.request<CardDetailOutput>(
      'GET',
      `${cardsPath(w.id)}/${idea.id}?attributes=sections,criteria`,
      { token: participant.token },
    );
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.sections).toEqual([
      { id: pros.id, title: 'Pros', items: [] },
      {
        id: cons.id,
        title: 'Cons',
        items: [
          { id: item.id, content: 'costly', section_id: cons.id, user_id: participant.id, author_visibility: 'shown' },
        ],
      },
    ]);
    expect(full.body.criteria).toHaveLength(1);
    expect(full.body.criteria![0]!).toMatchObject({
      id: impact.id,
      title: 'Impact',
      scale: 3,
      current_scale: [0, 5, 10],
    });
    expect(full.body.criteria![0]!.ratings.map((r) => r.id)).toEqual([mine.id, theirs.id]);

    await seedCurrentStep(t, w.id, { allow_display_ratings: false });
    const hidden = await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${idea.id}?attributes=criteria`, {
      token: participant.token,
    });
    expect(hidden.body).not.toHaveProperty('sections');
    expect(hidden.body.criteria![0]!.ratings.map((r) => r.id)).toEqual([mine.id]);
    const asFacilitator = await t.request<CardDetailOutput>(
      'GET',
      `${cardsPath(w.id)}/${idea.id}?attributes=criteria`,
      { token: facilitator.token },
    );
    expect(asFacilitator.body.criteria![0]!.ratings).toHaveLength(2);
  });

  it('refuses unknown attributes, foreign cards and strangers', async () => {
    const w = await workshop();
    const other = await seedWorkshop(t, facilitator);
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const foreign = await seedCard(t, other.id, facilitator, { type: 'cluster' });
    const bad = await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${card.id}?attributes=sections,votes`, {
      token: facilitator.token,
    });
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('attributes');
    expect(
      (
        await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${card.id}?attributes=`, {
          token: facilitator.token,
        })
      ).status,
    ).toBe(200);
    expectError(
      await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${foreign.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', `${cardsPath(w.id)}/missing`, { token: facilitator.token }), 404, 'not_found');
    expectError(
      await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${card.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
  });
});

describe('PUT /cards/:id', () => {
  it('updates fields and records updateCard with changes', async () => {
    const w = await workshop();
    const cluster = (await create(w.id, facilitator, { type: 'cluster', title: 'Cluster' })).body;
    const res = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${cluster.id}`, {
      token: facilitator.token,
      body: { title: 'Renamed', color: 'green', aside: true, content: 'More' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: cluster.id,
      short_id: cluster.short_id,
      title: 'Renamed',
      color: 'green',
      aside: true,
      content: 'More',
      position: 0,
    });
    const event = (await eventLog(w.id)).at(-1)!;
    expect(event.action).toBe('updateCard');
    expect(event.change).toEqual({
      card: res.body,
      changes: { title: ['Cluster', 'Renamed'], content: ['', 'More'], color: [null, 'green'], aside: [false, true] },
    });
    const cleared = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${cluster.id}`, {
      token: facilitator.token,
      body: { color: null },
    });
    expect(cleared.body.color).toBeNull();
    const before = await eventCount(w.id);
    expect(
      (await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${cluster.id}`, { token: facilitator.token, body: {} }))
        .status,
    ).toBe(200);
    expect(await eventCount(w.id)).toBe(before);
  });

  it('moves cards within and across stacks, keeping positions 0..n-1', async () => {
    const w = await workshop();
    const a = (await create(w.id, facilitator, { type: 'cluster', title: 'A' })).body;
    const b = (await create(w.id, facilitator, { type: 'cluster', title: 'B' })).body;
    const c = (await create(w.id, facilitator, { type: 'cluster', title: 'C' })).body;
    const ideas: Record<string, CardOutput> = {};
    for (const title of ['a1', 'a2', 'a3'])
      ideas[title] = (await create(w.id, facilitator, { title, parent: a.id })).body;
    for (const title of ['b1', 'b2']) ideas[title] = (await create(w.id, facilitator, { title, parent: b.id })).body;
    const put = (id: string, body: Record<string, unknown>) =>
      t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${id}`, { token: facilitator.token, body });

    expect((await put(c.id, { position: 0 })).body.position).toBe(0);
    expect(await titlesIn(w.id, facilitator)).toEqual(['C', 'A', 'a1', 'a2', 'a3', 'B', 'b1', 'b2']);

    const moved = await put(ideas.a1!.id, { parent: b.id, position: 1 });
    expect(moved.body).toMatchObject({ parent: b.id, position: 1 });
    expect(await titlesIn(w.id, facilitator, a.id)).toEqual(['a2', 'a3']);
    expect(await titlesIn(w.id, facilitator, b.id)).toEqual(['b1', 'a1', 'b2']);
    await expectPacked(w.id);

    expect((await put(ideas.a3!.id, { parent: c.id })).body.position).toBe(0);
    expect((await put(ideas.b2!.id, { parent: c.id })).body.position).toBe(1);
    expect((await put(ideas.b1!.id, { position: 5 })).body.position).toBe(1);
    expect(await titlesIn(w.id, facilitator)).toEqual(['C', 'a3', 'b2', 'A', 'a2', 'B', 'a1', 'b1']);
    await expectPacked(w.id);
    const event = (await eventLog(w.id)).at(-2)!;
    expect((event.change as any).changes).toEqual({ parent: [b.id, c.id], position: [2, 1] });
  });

  it('refuses a parent for a cluster, no parent for an idea and foreign parents', async () => {
    const w = await workshop();
    const other = await seedWorkshop(t, facilitator);
    const foreign = await seedCard(t, other.id, facilitator, { type: 'cluster' });
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const second = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const before = await eventCount(w.id);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [cluster.id, { parent: second.id }, 'parent'],
      [idea.id, { parent: null }, 'parent'],
      [idea.id, { parent: foreign.id }, 'parent'],
      [idea.id, { parent: idea.id }, 'parent'],
      [idea.id, { color: 'red' }, 'color'],
      [idea.id, { title: '' }, 'title'],
      [idea.id, { position: -3 }, 'position'],
      [idea.id, { aside: 1 }, 'aside'],
    ];
    for (const [id, body, path] of cases) {
      const res = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${id}`, { token: facilitator.token, body });
      expectError(res, 400, 'invalid_request');
      expect(
        errorOf(res).details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(
      (
        await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${cluster.id}`, {
          token: facilitator.token,
          body: { parent: null },
        })
      ).status,
    ).toBe(200);
    expect(await eventCount(w.id)).toBe(before);
    expect((await cardRows(w.id)).find((r) => r.id === idea.id)).toMatchObject({
      parentId: cluster.id,
      color: null,
      title: idea.title,
    });
    expectError(
      await t.request('PUT', `${cardsPath(other.id)}/${idea.id}`, { token: facilitator.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
  });

  it('lets participants edit per allow_edit none / their / all', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const theirs = await seedCard(t, w.id, participant, { parentId: cluster.id });
    const others = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const edit = (id: string, user = participant) =>
      t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${id}`, { token: user.token, body: { title: 'Edited' } });

    expect((await edit(theirs.id)).status).toBe(200);
    expectError(await edit(others.id), 403, 'forbidden');
    await seedCurrentStep(t, w.id, { allow_edit: 'none' });
    expectError(await edit(theirs.id), 403, 'forbidden');
    expect((await edit(others.id, facilitator)).status).toBe(200);
    await seedCurrentStep(t, w.id, { allow_edit: 'all' });
    expect((await edit(others.id)).status).toBe(200);
    await seedCurrentStep(t, w.id, { allow_edit: 'their' });
    expectError(await edit(others.id), 403, 'forbidden');
    expectError(await edit(others.id, stranger), 404, 'not_found');

    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    const before = await eventCount(w.id);
    expectError(await edit(theirs.id, facilitator), 409, 'workshop_archived');
    expect(await eventCount(w.id)).toBe(before);
  });
});

describe('DELETE /cards/:id', () => {
  it('deletes an idea, re-packing its stack', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const ideas = await inTurn(['i1', 'i2', 'i3'], (title) =>
      seedCard(t, w.id, facilitator, { parentId: cluster.id, title }),
    );
    const res = await t.request('DELETE', `${cardsPath(w.id)}/${ideas[0]!.id}`, { token: facilitator.token });
    expect(res.status).toBe(204);
    expect(await titlesIn(w.id, facilitator, cluster.id)).toEqual(['i2', 'i3']);
    await expectPacked(w.id);
    const event = (await eventLog(w.id)).at(-1)!;
    expect(event.action).toBe('removeCard');
    expect(event.change).toMatchObject({ card: { id: ideas[0]!.id, title: 'i1', position: 0 }, removed_ids: [] });
  });

  it('deletes a cluster with its ideas and their feedback', async () => {
    const w = await workshop();
    const { db } = t;
    const { votes } = t.tables;
    const keep = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'Keep' });
    const gone = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'Gone' });
    const last = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'Last' });
    const kept = await seedCard(t, w.id, facilitator, { parentId: keep.id });
    const children = [
      await seedCard(t, w.id, participant, { parentId: gone.id }),
      await seedCard(t, w.id, facilitator, { parentId: gone.id }),
    ];
    await t.write(async (tx, s) =>
      tx.insert(s.votes).values({ workshopId: w.id, cardId: children[0]!.id, userId: participant.id, value: 1 }),
    );

    expect((await t.request('DELETE', `${cardsPath(w.id)}/${gone.id}`, { token: facilitator.token })).status).toBe(204);
    expect((await cardRows(w.id)).map((r) => r.id).sort()).toEqual([keep.id, last.id, kept.id].sort());
    expect(await db.select().from(votes).where(eq(votes.workshopId, w.id))).toHaveLength(0);
    expect(await titlesIn(w.id, facilitator)).toEqual(['Keep', kept.title, 'Last']);
    await expectPacked(w.id);
    const event = (await eventLog(w.id)).at(-1)!;
    expect(event.change).toMatchObject({
      card: { id: gone.id },
      removed_ids: expect.arrayContaining(children.map((c) => c.id)),
    });
    expectError(
      await t.request('DELETE', `${cardsPath(w.id)}/${gone.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
  });

  it('lets participants delete per allow_delete none / their / all', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const cards_ = await inTurn(4, (i) =>
      seedCard(t, w.id, i % 2 ? facilitator : participant, { parentId: cluster.id }),
    );
    const remove = (id: string, user = participant) =>
      t.request('DELETE', `${cardsPath(w.id)}/${id}`, { token: user.token });
    const before = await eventCount(w.id);
    expectError(await remove(cards_[1]!.id), 403, 'forbidden');
    await seedCurrentStep(t, w.id, { allow_delete: 'none' });
    expectError(await remove(cards_[0]!.id), 403, 'forbidden');
    expectError(await remove(cards_[0]!.id, stranger), 404, 'not_found');
    expect(await cardRows(w.id)).toHaveLength(5);
    expect(await eventCount(w.id)).toBe(before);
    await seedCurrentStep(t, w.id, { allow_delete: 'their' });
    expect((await remove(cards_[0]!.id)).status).toBe(204);
    await seedCurrentStep(t, w.id, { allow_delete: 'all' });
    expect((await remove(cards_[1]!.id)).status).toBe(204);
    await expectPacked(w.id);

    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(await remove(cards_[2]!.id, facilitator), 409, 'workshop_archived');
    expect(await cardRows(w.id)).toHaveLength(3);
  });
});

describe('OpenAPI', () => {
  it('documents every card route', async () => {
    const res = await t.request<OpenApiDocument>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    expect(Object.keys(paths['/v1/workshops/{workshop_id}/cards']!).sort()).toEqual(['get', 'post', 'put']);
    expect(Object.keys(paths['/v1/workshops/{workshop_id}/cards/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(paths['/v1/workshops/{workshop_id}/cards/merge']!.post.responses).toHaveProperty('201');
    expect(paths['/v1/workshops/{workshop_id}/cards']!.put.requestBody.content).toHaveProperty('multipart/form-data');
  });
});

describe('list freshness', () => {
  it('reflects every change, whichever instance made it, and keeps other workshops cached', async () => {
    const w = await workshop();
    const quiet = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await seedCard(t, quiet.id, facilitator, { type: 'cluster' });
    const list = async (id: string) =>
      (await t.request<CardOutput[]>('GET', cardsPath(id), { token: facilitator.token })).body;
    const score = async () => (await list(w.id))[0]!.summary.score;
    expect(await score()).toBe(0);
    const cached = await list(quiet.id);
    expect(
      (
        await t.request('POST', `${cardsPath(w.id)}/${cluster.id}/votes`, {
          token: participant.token,
          body: { value: 2 },
        })
      ).status,
    ).toBe(201);
    expect(await score()).toBe(2);

    // A second instance on the same file: its writes number the workshop's events in the file too.
    const second = await startTestServer({}, { shareDatabaseOf: t });
    try {
      expect(
        (
          await second.request('POST', `${cardsPath(w.id)}/${cluster.id}/votes`, {
            token: facilitator.token,
            body: { value: 3 },
          })
        ).status,
      ).toBe(201);
    } finally {
      await second.close();
    }
    expect(await score()).toBe(5);
    expect(await list(quiet.id)).toEqual(cached);
  });

  it('lists each card exactly as GET /cards/:id shows it', async () => {
    const w = await workshop();
    const cluster = (
      await create(w.id, facilitator, { type: 'cluster', title: 'C "quoted" ✓', color: 'rose', aside: true })
    ).body;
    const idea = (await create(w.id, participant, { title: 'Idea', content: 'line\nbreak', parent: cluster.id })).body;
    const section = await t.write(async (tx, { items, sections, votes }) => {
      const [section] = await tx.insert(sections).values({ workshopId: w.id, title: 'S', position: 0 }).returning();
      await tx
        .insert(items)
        .values({ workshopId: w.id, cardId: idea.id, sectionId: section!.id, userId: participant.id, content: 'x' });
      await tx.insert(votes).values({ workshopId: w.id, cardId: idea.id, userId: participant.id, value: -2 });
      return section!;
    });
    const list = (await t.request<CardOutput[]>('GET', cardsPath(w.id), { token: participant.token })).body;
    for (const card of list) {
      expect(
        (await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${card.id}`, { token: participant.token })).body,
      ).toEqual(card);
    }
    expect(list[1]!.summary).toEqual({ score: -2, comments: 0, sections: { [section.id]: 1 }, attachments: 0 });
  });
});
