import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../src/db/database';
import type { CardOutput } from '../src/domain/cards';
import {
  expectError,
  seedCard,
  seedCurrentStep,
  seedWorkshop,
  seedWorkshopWith,
  errorOf,
  inTurn,
} from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';
import { failNextStatement, storeBusyError } from './helpers/statements';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

const workshop = () => seedWorkshopWith(t, facilitator, [participant]);

const merge = (workshopId: string, body: unknown, user = facilitator) =>
  t.request<CardOutput>('POST', `/v1/workshops/${workshopId}/cards/merge`, { token: user.token, body });

async function snapshot(workshopId: string) {
  const { db } = t;
  const { cards, events, ratings, votes, workshops } = t.tables;
  return {
    cards: await db.select().from(cards).where(eq(cards.workshopId, workshopId)).orderBy(asc(cards.id)),
    votes: await db.select().from(votes).where(eq(votes.workshopId, workshopId)).orderBy(asc(votes.id)),
    ratings: await db.select().from(ratings).where(eq(ratings.workshopId, workshopId)).orderBy(asc(ratings.id)),
    events: (await db.select().from(events).where(eq(events.workshopId, workshopId))).length,
    lastCardNumber: (await db.select().from(workshops).where(eq(workshops.id, workshopId)))[0]!.lastCardNumber,
  };
}

async function listed(workshopId: string) {
  const res = await t.request('GET', `/v1/workshops/${workshopId}/cards`, { token: facilitator.token });
  expect(res.status).toBe(200);
  return res.body as any[];
}

function expectPacked(list: any[]) {
  const byStack = new Map<string, number[]>();
  for (const card of list)
    byStack.set(card.parent ?? 'clusters', [...(byStack.get(card.parent ?? 'clusters') ?? []), card.position]);
  for (const positions of byStack.values()) expect(positions).toEqual(positions.map((_, i) => i));
}

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 10, minutes)).toISOString();

describe('POST /cards/merge', () => {
  it('merges ideas: feedback moves, the latest rating per user and criterion survives', async () => {
    const w = await workshop();
    const { db } = t;
    const { cards, events, ratings, votes } = t.tables;
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const a1 = await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a1' });
    const a2 = await seedCard(t, w.id, participant, { parentId: a.id, title: 'a2' });
    const a3 = await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a3' });
    const b1 = await seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b1' });
    const b2 = await seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b2' });

    const { older, latest, updatedLater, createdLater, onlyOne, elsewhere, section } = await t.write(async (tx, s) => {
      await tx.insert(s.votes).values([
        { workshopId: w.id, cardId: a2.id, userId: participant.id, value: 2 },
        { workshopId: w.id, cardId: b1.id, userId: participant.id, value: 1 },
        { workshopId: w.id, cardId: b1.id, userId: facilitator.id, value: -1 },
      ]);
      const criterion = async (values: Schema['criteria']['$inferInsert']) =>
        (await tx.insert(s.criteria).values(values).returning())[0]!;
      const rating = async (values: Schema['ratings']['$inferInsert']) =>
        (await tx.insert(s.ratings).values(values).returning())[0]!;
      const impact = await criterion({ workshopId: w.id, title: 'Impact', scale: 1, position: 0 });
      const effort = await criterion({ workshopId: w.id, title: 'Effort', scale: 1, position: 1 });
      const older = await rating({
        workshopId: w.id,
        cardId: a2.id,
        criteriumId: impact.id,
        userId: participant.id,
        value: 3,
        createdAt: at(0),
        updatedAt: at(0),
      });
      const latest = await rating({
        workshopId: w.id,
        cardId: b1.id,
        criteriumId: impact.id,
        userId: participant.id,
        value: 7,
        createdAt: at(1),
        updatedAt: at(2),
      });
      const updatedLater = await rating({
        workshopId: w.id,
        cardId: b1.id,
        criteriumId: impact.id,
        userId: facilitator.id,
        value: 1,
        createdAt: at(0),
        updatedAt: at(9),
      });
      const createdLater = await rating({
        workshopId: w.id,
        cardId: a2.id,
        criteriumId: impact.id,
        userId: facilitator.id,
        value: 9,
        createdAt: at(3),
        updatedAt: at(3),
      });
      const onlyOne = await rating({
        workshopId: w.id,
        cardId: b1.id,
        criteriumId: effort.id,
        userId: participant.id,
        value: 4,
        createdAt: at(0),
        updatedAt: at(0),
      });
      const elsewhere = await rating({
        workshopId: w.id,
        cardId: a1.id,
        criteriumId: impact.id,
        userId: participant.id,
        value: 5,
      });
      const [section] = await tx
        .insert(s.sections)
        .values({ workshopId: w.id, title: 'Pros', position: 0 })
        .returning();
      await tx.insert(s.items).values([
        { workshopId: w.id, cardId: a2.id, sectionId: section!.id, userId: participant.id, content: 'x' },
        { workshopId: w.id, cardId: b1.id, sectionId: section!.id, userId: participant.id, content: 'y' },
      ]);
      await tx.insert(s.comments).values({ workshopId: w.id, cardId: b1.id, userId: participant.id, content: 'hi' });
      await tx.insert(s.attachments).values({
        id: 'm-att',
        workshopId: w.id,
        cardId: b1.id,
        userId: participant.id,
        name: 'a.png',
        fileKey: 'k',
        container: 'c',
        mimetype: 'image/png',
        size: 3,
        createdAt: at(0),
      });
      return { older, latest, updatedLater, createdLater, onlyOne, elsewhere, section: section! };
    });

    const res = await merge(w.id, { cards_id: [a2.id, b1.id], title: 'Merged', content: 'Both' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const merged = res.body;
    expect(merged).toMatchObject({
      short_id: '8',
      type: 'idea',
      title: 'Merged',
      content: 'Both',
      parent: a.id,
      position: 1,
      user_id: facilitator.id,
      color: null,
    });
    expect(merged.summary).toEqual({ score: 2, comments: 1, sections: { [section.id]: 2 }, attachments: 1 });

    const cardIds = (await db.select({ id: cards.id }).from(cards).where(eq(cards.workshopId, w.id))).map((r) => r.id);
    expect(cardIds).not.toContain(a2.id);
    expect(cardIds).not.toContain(b1.id);
    expect(await db.select().from(votes).where(eq(votes.cardId, merged.id))).toHaveLength(3);
    const kept = (await db.select().from(ratings).where(eq(ratings.cardId, merged.id))).map((r) => r.id).sort();
    expect(kept).toEqual([latest.id, updatedLater.id, onlyOne.id].sort());
    expect((await db.select().from(ratings).where(eq(ratings.id, older.id)))[0]).toBeUndefined();
    expect((await db.select().from(ratings).where(eq(ratings.id, createdLater.id)))[0]).toBeUndefined();
    expect((await db.select().from(ratings).where(eq(ratings.id, elsewhere.id)))[0]!.cardId).toBe(a1.id);

    const list = await listed(w.id);
    expect(list.map((c) => c.title)).toEqual(['A', 'a1', 'Merged', 'a3', 'B', 'b2']);
    expectPacked(list);
    expect(list.find((c) => c.id === a3.id).position).toBe(2);
    expect(list.find((c) => c.id === b2.id).position).toBe(0);

    const event = (await db.select().from(events).where(eq(events.workshopId, w.id)).orderBy(asc(events.seq))).at(-1)!;
    expect(event.action).toBe('mergeCards');
    expect(event.change).toEqual({ card: merged, merged_ids: [a2.id, b1.id] });
  });

  it("merges clusters: the new cluster takes the first one's place and adopts all their ideas", async () => {
    const w = await workshop();
    const [a, b, c, d] = await inTurn(['A', 'B', 'C', 'D'], (title) =>
      seedCard(t, w.id, facilitator, { type: 'cluster', title }),
    );
    await t.write(async (tx, { cards }) => tx.update(cards).set({ color: 'red' }).where(eq(cards.id, c!.id)));
    await seedCard(t, w.id, facilitator, { parentId: a!.id, title: 'a1' });
    await seedCard(t, w.id, facilitator, { parentId: c!.id, title: 'c1' });
    await seedCard(t, w.id, facilitator, { parentId: c!.id, title: 'c2' });
    const b1 = await seedCard(t, w.id, facilitator, { parentId: b!.id, title: 'b1' });
    await seedCard(t, w.id, facilitator, { parentId: d!.id, title: 'd1' });

    const res = await merge(w.id, { cards_id: [c!.id, a!.id, b1.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'cluster', title: 'C', parent: null, color: 'red', position: 1 });
    const list = await listed(w.id);
    expect(list.map((x) => x.title)).toEqual(['B', 'C', 'c1', 'c2', 'a1', 'D', 'd1']);
    expect(list.filter((x) => x.parent === res.body.id).map((x) => x.title)).toEqual(['c1', 'c2', 'a1']);
    expectPacked(list);
  });

  it("merging a cluster into an idea moves its ideas under the idea's cluster", async () => {
    const w = await workshop();
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const c = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'C' });
    const a1 = await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a1' });
    await seedCard(t, w.id, facilitator, { parentId: a.id, title: 'a2' });
    await seedCard(t, w.id, facilitator, { parentId: b.id, title: 'b1' });

    const res = await merge(w.id, { cards_id: [a1.id, b.id], title: 'Both' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'idea', parent: a.id, position: 0 });
    const list = await listed(w.id);
    expect(list.map((x) => x.title)).toEqual(['A', 'Both', 'a2', 'b1', 'C']);
    expect(list.find((x) => x.id === c.id).position).toBe(1);
    expectPacked(list);
  });

  it('refuses bad lists with 400 and changes nothing', async () => {
    const w = await workshop();
    const other = await seedWorkshop(t, facilitator);
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const a1 = await seedCard(t, w.id, facilitator, { parentId: a.id });
    const foreign = await seedCard(t, other.id, facilitator, { type: 'cluster' });
    const before = await snapshot(w.id);
    const cases: Array<[unknown, string]> = [
      [{ cards_id: [a.id] }, 'cards_id'],
      [{ cards_id: [a.id, a.id] }, 'cards_id'],
      [{ cards_id: 'nope' }, 'cards_id'],
      [{}, 'cards_id'],
      [{ cards_id: [a.id, foreign.id] }, 'cards_id.1'],
      [{ cards_id: ['missing', a.id] }, 'cards_id.0'],
      [{ cards_id: [a.id, 'missing', 'gone'] }, 'cards_id.1'],
      [{ cards_id: [a1.id, a.id] }, 'cards_id'],
      [{ cards_id: [a.id, a1.id], title: '' }, 'title'],
    ];
    for (const [body, path] of cases) {
      const res = await merge(w.id, body);
      expectError(res, 400, 'invalid_request');
      expect(
        errorOf(res).details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await snapshot(w.id)).toEqual(before);
  });

  it('answers 503, not 400, when the database fails while reading the listed cards, and changes nothing', async () => {
    const w = await workshop();
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const before = await snapshot(w.id);
    // The first read of whole card rows in the merge is that of the listed cards.
    const failing = failNextStatement(/^select "id", "workshop_id", "number", .* from "cards"/, storeBusyError());
    let res;
    try {
      res = await merge(w.id, { cards_id: [a.id, b.id] });
    } finally {
      expect(failing.stop()).toBe(true);
    }
    expectError(res, 503, 'service_unavailable');
    expect(await snapshot(w.id)).toEqual(before);
    expect((await merge(w.id, { cards_id: [a.id, b.id] })).status).toBe(201);
  });

  it('needs the right to create that type and to delete every merged card', async () => {
    const w = await workshop();
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const mine = await seedCard(t, w.id, participant, { parentId: a.id });
    const alsoMine = await seedCard(t, w.id, participant, { parentId: a.id });
    const theirs = await seedCard(t, w.id, facilitator, { parentId: a.id });
    const before = await snapshot(w.id);

    expectError(await merge(w.id, { cards_id: [mine.id, theirs.id] }, participant), 403, 'forbidden');
    await seedCurrentStep(t, w.id, { allow_add_idea: false });
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, participant), 403, 'forbidden');
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, stranger), 404, 'not_found');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(await merge(w.id, { cards_id: [mine.id, alsoMine.id] }), 409, 'workshop_archived');
    expect(await snapshot(w.id)).toEqual(before);

    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'running' }).where(eq(workshops.id, w.id)),
    );
    await seedCurrentStep(t, w.id, { allow_add_idea: true, allow_delete: 'their' });
    const res = await merge(w.id, { cards_id: [mine.id, alsoMine.id] }, participant);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: participant.id, title: mine.title });
  });
});
