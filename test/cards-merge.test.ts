import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cards, comments, criteria, events, items, ratings, sections, votes, workshops } from '../src/db/schema/index';
import type { CardOutput } from '../src/modules/cards/schemas';
import { expectError, seedCard, seedCurrentStep, seedWorkshop, seedWorkshopWith, errorOf } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

const workshop = () => seedWorkshopWith(t, facilitator, [participant]);

const merge = (workshopId: string, body: unknown, user = facilitator) =>
  t.request<CardOutput>('POST', `/v1/workshops/${workshopId}/cards/merge`, { token: user.token, body });

function snapshot(workshopId: string) {
  const { db } = t.deps.database;
  return {
    cards: db.select().from(cards).where(eq(cards.workshopId, workshopId)).orderBy(asc(cards.id)).all(),
    votes: db.select().from(votes).where(eq(votes.workshopId, workshopId)).orderBy(asc(votes.id)).all(),
    ratings: db.select().from(ratings).where(eq(ratings.workshopId, workshopId)).orderBy(asc(ratings.id)).all(),
    events: db.select().from(events).where(eq(events.workshopId, workshopId)).all().length,
    lastCardNumber: db.select().from(workshops).where(eq(workshops.id, workshopId)).get()!.lastCardNumber,
  };
}

async function listed(workshopId: string) {
  const res = await t.request('GET', `/v1/workshops/${workshopId}/cards`, { token: facilitator.token });
  expect(res.status).toBe(200);
  return res.body as any[];
}

function expectPacked(list: any[]) {
  const byStack = new Map<string, number[]>();
  for (const card of list) byStack.set(card.parent ?? 'clusters', [...(byStack.get(card.parent ?? 'clusters') ?? []), card.position]);
  for (const positions of byStack.values()) expect(positions).toEqual(positions.map((_, i) => i));
}

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 10, minutes)).toISOString();

describe('POST /cards/merge', () => {
  it('merges ideas: feedback moves, the latest rating per user and criterion survives', async () => {
    const w = workshop();
    const { db } = t.deps.database;
    const a = seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const a1 = seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a1' });
    const a2 = seedCard(t, w.id, participant, { parentId: a.id, title: 'a2' });
    const a3 = seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a3' });
    const b1 = seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b1' });
    const b2 = seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b2' });

    db.insert(votes).values([
      { workshopId: w.id, cardId: a2.id, userId: participant.id, value: 2 },
      { workshopId: w.id, cardId: b1.id, userId: participant.id, value: 1 },
      { workshopId: w.id, cardId: b1.id, userId: facilitator.id, value: -1 },
    ]).run();
    const impact = db.insert(criteria).values({ workshopId: w.id, title: 'Impact', scale: 1, position: 0 }).returning().get();
    const effort = db.insert(criteria).values({ workshopId: w.id, title: 'Effort', scale: 1, position: 1 }).returning().get();
    const older = db.insert(ratings).values({ workshopId: w.id, cardId: a2.id, criteriumId: impact.id, userId: participant.id, value: 3, createdAt: at(0), updatedAt: at(0) }).returning().get();
    const latest = db.insert(ratings).values({ workshopId: w.id, cardId: b1.id, criteriumId: impact.id, userId: participant.id, value: 7, createdAt: at(1), updatedAt: at(2) }).returning().get();
    const updatedLater = db.insert(ratings).values({ workshopId: w.id, cardId: b1.id, criteriumId: impact.id, userId: facilitator.id, value: 1, createdAt: at(0), updatedAt: at(9) }).returning().get();
    const createdLater = db.insert(ratings).values({ workshopId: w.id, cardId: a2.id, criteriumId: impact.id, userId: facilitator.id, value: 9, createdAt: at(3), updatedAt: at(3) }).returning().get();
    const onlyOne = db.insert(ratings).values({ workshopId: w.id, cardId: b1.id, criteriumId: effort.id, userId: participant.id, value: 4, createdAt: at(0), updatedAt: at(0) }).returning().get();
    const elsewhere = db.insert(ratings).values({ workshopId: w.id, cardId: a1.id, criteriumId: impact.id, userId: participant.id, value: 5 }).returning().get();
    const section = db.insert(sections).values({ workshopId: w.id, title: 'Pros', position: 0 }).returning().get();
    db.insert(items).values([
      { workshopId: w.id, cardId: a2.id, sectionId: section.id, userId: participant.id, content: 'x' },
      { workshopId: w.id, cardId: b1.id, sectionId: section.id, userId: participant.id, content: 'y' },
    ]).run();
    db.insert(comments).values({ workshopId: w.id, cardId: b1.id, userId: participant.id, content: 'hi' }).run();
    t.deps.database.sqlite
      .prepare("INSERT INTO attachments (id, workshop_id, card_id, user_id, name, file_key, container, mimetype, size, created_at) VALUES ('m-att', ?, ?, ?, 'a.png', 'k', 'c', 'image/png', 3, ?)")
      .run(w.id, b1.id, participant.id, at(0));

    const res = await merge(w.id, { cards_id: [a2.id, b1.id], title: 'Merged', content: 'Both' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const merged = res.body;
    expect(merged).toMatchObject({ short_id: '8', type: 'idea', title: 'Merged', content: 'Both', parent: a.id, position: 1, user_id: facilitator.id, color: null });
    expect(merged.summary).toEqual({ score: 2, comments: 1, sections: { [section.id]: 2 }, attachments: 1 });

    const cardIds = db.select({ id: cards.id }).from(cards).where(eq(cards.workshopId, w.id)).all().map((r) => r.id);
    expect(cardIds).not.toContain(a2.id);
    expect(cardIds).not.toContain(b1.id);
    expect(db.select().from(votes).where(eq(votes.cardId, merged.id)).all()).toHaveLength(3);
    const kept = db.select().from(ratings).where(eq(ratings.cardId, merged.id)).all().map((r) => r.id).sort();
    expect(kept).toEqual([latest.id, updatedLater.id, onlyOne.id].sort());
    expect(db.select().from(ratings).where(eq(ratings.id, older.id)).get()).toBeUndefined();
    expect(db.select().from(ratings).where(eq(ratings.id, createdLater.id)).get()).toBeUndefined();
    expect(db.select().from(ratings).where(eq(ratings.id, elsewhere.id)).get()!.cardId).toBe(a1.id);

    const list = await listed(w.id);
    expect(list.map((c) => c.title)).toEqual(['A', 'a1', 'Merged', 'a3', 'B', 'b2']);
    expectPacked(list);
    expect(list.find((c) => c.id === a3.id).position).toBe(2);
    expect(list.find((c) => c.id === b2.id).position).toBe(0);

    const event = db.select().from(events).where(eq(events.workshopId, w.id)).orderBy(asc(events.seq)).all().at(-1)!;
    expect(event.action).toBe('mergeCards');
    expect(event.change).toEqual({ card: merged, merged_ids: [a2.id, b1.id] });
  });

  it('merges clusters: the new cluster takes the first one\'s place and adopts all their ideas', async () => {
    const w = workshop();
    const [a, b, c, d] = ['A', 'B', 'C', 'D'].map((title) => seedCard(t, w.id, facilitator, { type: 'cluster', title }));
    t.deps.database.db.update(cards).set({ color: 'red' }).where(eq(cards.id, c!.id)).run();
    seedCard(t, w.id, facilitator, { parentId: a!.id, title: 'a1' });
    seedCard(t, w.id, facilitator, { parentId: c!.id, title: 'c1' });
    seedCard(t, w.id, facilitator, { parentId: c!.id, title: 'c2' });
    const b1 = seedCard(t, w.id, facilitator, { parentId: b!.id, title: 'b1' });
    seedCard(t, w.id, facilitator, { parentId: d!.id, title: 'd1' });

    const res = await merge(w.id, { cards_id: [c!.id, a!.id, b1.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'cluster', title: 'C', parent: null, color: 'red', position: 1 });
    const list = await listed(w.id);
    expect(list.map((x) => x.title)).toEqual(['B', 'C', 'c1', 'c2', 'a1', 'D', 'd1']);
    expect(list.filter((x) => x.parent === res.body.id).map((x) => x.title)).toEqual(['c1', 'c2', 'a1']);
    expectPacked(list);
  });

  it('merging a cluster into an idea moves its ideas under the idea\'s cluster', async () => {
    const w = workshop();
    const a = seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const c = seedCard(t, w.id, facilitator, { type: 'cluster', title: 'C' });
    const a1 = seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a1' });
    seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a2' });
    seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b1' });

    const res = await merge(w.id, { cards_id: [a1.id, b.id], title: 'Both' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'idea', parent: a.id, position: 0 });
    const list = await listed(w.id);
    expect(list.map((x) => x.title)).toEqual(['A', 'Both', 'a2', 'b1', 'C']);
    expect(list.find((x) => x.id === c.id).position).toBe(1);
    expectPacked(list);
  });

  it('refuses bad lists with 400 and changes nothing', async () => {
    const w = workshop();
    const other = seedWorkshop(t, facilitator);
    const a = seedCard(t, w.id, facilitator, { type: 'cluster' });
    const a1 = seedCard(t, w.id, facilitator, { parentId: a.id });
    const foreign = seedCard(t, other.id, facilitator, { type: 'cluster' });
    const before = snapshot(w.id);
    const cases: Array<[unknown, string]> = [
      [{ cards_id: [a.id] }, 'cards_id'],
      [{ cards_id: [a.id, a.id] }, 'cards_id'],
      [{ cards_id: 'nope' }, 'cards_id'],
      [{}, 'cards_id'],
      [{ cards_id: [a.id, foreign.id] }, 'cards_id.1'],
      [{ cards_id: ['missing', a.id] }, 'cards_id.0'],
      [{ cards_id: [a1.id, a.id] }, 'cards_id'],
      [{ cards_id: [a.id, a1.id], title: '' }, 'title'],
    ];
    for (const [body, path] of cases) {
      const res = await merge(w.id, body);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.map((d) => d.path), JSON.stringify(body)).toContain(path);
    }
    expect(snapshot(w.id)).toEqual(before);
  });

  it('needs the right to create that type and to delete every merged card', async () => {
    const w = workshop();
    const a = seedCard(t, w.id, facilitator, { type: 'cluster' });
    const mine = seedCard(t, w.id, participant, { parentId: a.id });
    const alsoMine = seedCard(t, w.id, participant, { parentId: a.id });
    const theirs = seedCard(t, w.id, facilitator, { parentId: a.id });
    const before = snapshot(w.id);

    expectError(await merge(w.id, { cards_id: [mine.id, theirs.id] }, participant), 403, 'forbidden');
    seedCurrentStep(t, w.id, { allow_add_idea: false });
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, participant), 403, 'forbidden');
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, stranger), 404, 'not_found');
    t.deps.database.db.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)).run();
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }), 409, 'workshop_archived');
    expect(snapshot(w.id)).toEqual(before);

    t.deps.database.db.update(workshops).set({ state: 'running' }).where(eq(workshops.id, w.id)).run();
    seedCurrentStep(t, w.id, { allow_add_idea: true, allow_delete: 'their' });
    const res = await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, participant);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: participant.id, title: mine.title });
  });
});
