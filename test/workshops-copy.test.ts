import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../src/db/database';
import { DEFAULT_PREFS } from '../src/domain/permissions';
import { DEFAULT_VIEW } from '../src/domain/view';
import type { WorkshopOutput } from '../src/domain/workshops';
import {
  eventLog,
  expectError,
  seedCard,
  seedCriterion,
  seedMember,
  seedSection,
  seedWorkshop,
  errorOf,
} from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, eve] = useUsers(t, 'Ada', 'Bob', 'Eve');

const rowsOf = async <K extends 'steps' | 'criteria' | 'sections'>(kind: K, workshopId: string) => {
  const table = t.tables[kind] as Schema['steps'];
  return (await t.db
    .select()
    .from(table)
    .where(eq(table.workshopId, workshopId))
    .orderBy(asc(table.position))) as Array<Schema[K]['$inferSelect']>;
};
const cardsOf = (workshopId: string) =>
  t.db
    .select()
    .from(t.tables.cards)
    .where(eq(t.tables.cards.workshopId, workshopId))
    .orderBy(asc(t.tables.cards.number));
const countWhere = async (kind: 'votes' | 'ratings' | 'comments' | 'workshopMembers', workshopId: string) => {
  const table = t.tables[kind];
  return (await t.db.select().from(table).where(eq(table.workshopId, workshopId))).length;
};
const workshopCount = async () => (await t.db.select().from(t.tables.workshops)).length;
const workshopRow = async (id: string) =>
  (await t.db.select().from(t.tables.workshops).where(eq(t.tables.workshops.id, id)))[0]!;

describe('copying a workshop', () => {
  async function seedSource() {
    const source = await seedWorkshop(t, ada, {
      title: 'Source',
      description: 'Original',
      votePositive: 7,
      voteMaxNegative: 1,
      forceSync: true,
      dailyMail: false,
    });
    await seedMember(t, source.id, bob);
    const criterion = await seedCriterion(t, source.id, { title: 'Value', scale: 2 });
    const section = await seedSection(t, source.id, 'Notes');
    const cluster = await seedCard(t, source.id, ada, { title: 'Theme' });
    const idea = await seedCard(t, source.id, bob, { title: 'Idea', parentId: cluster.id, aside: true });
    const second = await seedCard(t, source.id, ada, { title: 'Second theme' });
    const view = {
      ...DEFAULT_VIEW,
      card: idea.id,
      sort: 'criterium_average' as const,
      sort_criterium_id: criterion.id,
      show_clusters: 'multi' as const,
      show_cluster_ids: [second.id, 'gone'],
    };
    const { first, rate } = await t.write(async (tx, { workshops, steps, votes, ratings, comments }) => {
      await tx.update(workshops).set({ lastCardNumber: 9 }).where(eq(workshops.id, source.id));
      const [first] = await tx
        .insert(steps)
        .values({
          workshopId: source.id,
          position: 0,
          name: 'Collect',
          instructions: 'Write',
          prefs: { ...DEFAULT_PREFS, allow_vote_on_ideas: false },
          view: DEFAULT_VIEW,
        })
        .returning();
      const [rate] = await tx
        .insert(steps)
        .values({
          workshopId: source.id,
          position: 1,
          name: 'Rate',
          instructions: 'Rate it',
          prefs: DEFAULT_PREFS,
          view,
        })
        .returning();
      await tx.update(workshops).set({ currentStepId: rate!.id, view }).where(eq(workshops.id, source.id));
      await tx.insert(votes).values({ workshopId: source.id, cardId: idea.id, userId: bob.id, value: 1 });
      await tx
        .insert(ratings)
        .values({ workshopId: source.id, cardId: idea.id, criteriumId: criterion.id, userId: bob.id, value: 3 });
      await tx.insert(comments).values({ workshopId: source.id, cardId: idea.id, userId: bob.id, content: 'hm' });
      return { first: first!, rate: rate! };
    });
    return { source, criterion, section, cluster, idea, second, first, rate };
  }

  it('copies settings, steps, criteria, sections and cards with new ids, and leaves feedback and members behind', async () => {
    const s = await seedSource();
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { workshop_id: s.source.id, title: 'The copy' },
    });
    expect(res.status).toBe(201);
    const copy = res.body;
    expect(copy.id).not.toBe(s.source.id);
    expect(copy).toMatchObject({
      title: 'The copy',
      description: 'Original',
      state: 'running',
      owner: { id: ada.id },
      daily_mail: false,
      force_sync: true,
      vote_limit: { positive: 7, negative: -1, max_positive: 3, max_negative: 1 },
      sections: [{ title: 'Notes' }],
      criteria: [{ title: 'Value', scale: 2, current_scale: [0, 1, 3, 9], ratings: [] }],
    });
    expect(copy.sections[0]!.id).not.toBe(s.section.id);

    const copiedSteps = await rowsOf('steps', copy.id);
    expect(copiedSteps.map((st) => [st.name, st.instructions, st.position, st.prefs.allow_vote_on_ideas])).toEqual([
      ['Collect', 'Write', 0, false],
      ['Rate', 'Rate it', 1, true],
    ]);
    expect(copy.current_step_id).toBe(copiedSteps[1]!.id);

    const copiedCards = await cardsOf(copy.id);
    expect(copiedCards.map((c) => [c.number, c.title, c.type, c.position, c.aside, c.userId])).toEqual([
      [1, 'Theme', 'cluster', 0, false, ada.id],
      [2, 'Idea', 'idea', 0, true, bob.id],
      [3, 'Second theme', 'cluster', 1, false, ada.id],
    ]);
    const [theme, idea, second] = copiedCards;
    expect(idea!.parentId).toBe(theme!.id);
    expect(copiedCards.map((c) => c.id)).not.toContain(s.idea.id);
    // The views point at the copies.
    const expectedView = {
      ...DEFAULT_VIEW,
      card: idea!.id,
      sort: 'criterium_average',
      sort_criterium_id: copy.criteria[0]!.id,
      show_clusters: 'multi',
      show_cluster_ids: [second!.id],
    };
    expect(copy.view).toEqual(expectedView);
    expect(copiedSteps[1]!.view).toEqual(expectedView);

    const copyRow = await workshopRow(copy.id);
    expect(copyRow.lastCardNumber).toBe(9);
    expect(copyRow.accessCode).not.toBe(s.source.accessCode);
    expect(await countWhere('votes', copy.id)).toBe(0);
    expect(await countWhere('ratings', copy.id)).toBe(0);
    expect(await countWhere('comments', copy.id)).toBe(0);
    expect(
      await t.db.select().from(t.tables.workshopMembers).where(eq(t.tables.workshopMembers.workshopId, copy.id)),
    ).toMatchObject([{ userId: ada.id, role: 'facilitator' }]);
    expect((await eventLog(t, copy.id)).map((e) => e.action)).toEqual(['createWorkshop']);
    // The source is untouched.
    expect(await cardsOf(s.source.id)).toHaveLength(3);
    expect(await countWhere('votes', s.source.id)).toBe(1);
  });

  it('lets any member copy, keeps the title when none is given, and makes the copy personal', async () => {
    const [org] = await t.write(async (tx, { organizations }) =>
      tx.insert(organizations).values({ name: 'Org' }).returning(),
    );
    const source = await seedWorkshop(t, ada, { title: 'Org workshop', ownerType: 'organization', ownerId: org!.id });
    await seedMember(t, source.id, bob);
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: bob.token,
      body: { workshop_id: source.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'Org workshop', owner: { id: bob.id, name: 'Bob' } });
  });

  it('answers 404 to strangers and for unknown workshops, creating nothing', async () => {
    const source = await seedWorkshop(t, ada);
    const before = await workshopCount();
    expectError(
      await t.request<WorkshopOutput>('POST', '/v1/workshops', {
        token: eve.token,
        body: { workshop_id: source.id, title: 'Mine now' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request<WorkshopOutput>('POST', '/v1/workshops', {
        token: ada.token,
        body: { workshop_id: 'unknown', title: 'x' },
      }),
      404,
      'not_found',
    );
    expect(await workshopCount()).toBe(before);
  });
});

describe('creating from a template', () => {
  it('creates the SWOT steps, quadrants and section', async () => {
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { template: 'swot-analysis' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'SWOT analysis',
      current_step_id: null,
      sections: [{ title: 'Strategy' }],
      criteria: [],
    });
    const created = await rowsOf('steps', res.body.id);
    expect(created.map((s) => s.name)).toEqual([
      'Set the objective',
      'Internal factors',
      'External factors',
      'Prioritize',
      'Derive strategies',
    ]);
    const prioritize = created[3]!;
    expect(prioritize.prefs).toMatchObject({
      allow_vote_on_ideas: true,
      allow_add_idea: false,
      allow_display_votes: false,
    });
    expect(Object.keys(prioritize.prefs).sort()).toEqual(Object.keys(DEFAULT_PREFS).sort());
    expect(prioritize.view).toEqual({ ...DEFAULT_VIEW, card_sub_view: 'votes' });
    const created_cards = await cardsOf(res.body.id);
    expect(created_cards.map((c) => [c.number, c.type, c.title, c.color, c.position, c.userId])).toEqual([
      [1, 'cluster', 'Strengths', 'green', 0, ada.id],
      [2, 'cluster', 'Weaknesses', 'orange', 1, ada.id],
      [3, 'cluster', 'Opportunities', 'blue', 2, ada.id],
      [4, 'cluster', 'Threats', 'red', 3, ada.id],
    ]);
    const row = await workshopRow(res.body.id);
    expect(row.lastCardNumber).toBe(4);
    expect((await eventLog(t, res.body.id)).map((e) => e.action)).toEqual(['createWorkshop']);
  });

  it('creates criteria and points rating steps at them, with the body title and settings', async () => {
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { template: 'impact-effort', title: 'Roadmap triage', daily_mail: false },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'Roadmap triage', daily_mail: false });
    expect(res.body.criteria.map((c: { title: string; scale: number }) => [c.title, c.scale])).toEqual([
      ['Impact', 1],
      ['Effort', 1],
    ]);
    const [impact, effort] = res.body.criteria;
    const created = await rowsOf('steps', res.body.id);
    expect(created[2]!.view).toMatchObject({
      sort: 'criterium_average',
      sort_criterium_id: impact!.id,
      card_sub_view: 'ratings-user',
    });
    expect(created[3]!.view).toMatchObject({ sort: 'criterium_average', sort_criterium_id: effort!.id });
    expect(created[2]!.prefs).toMatchObject({ allow_rate: true, allow_display_ratings: false, allow_add_idea: false });
  });

  it('instantiates every template in the catalog', async () => {
    const list = await t.request('GET', '/v1/templates', { token: ada.token });
    for (const { id, title } of list.body as Array<{ id: string; title: string }>) {
      const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
        token: ada.token,
        body: { template: id },
      });
      expect(res.status, id).toBe(201);
      expect(res.body.title).toBe(title);
      const created = await rowsOf('steps', res.body.id);
      expect(created.length, id).toBeGreaterThanOrEqual(3);
      expect(created.map((s) => s.position)).toEqual(created.map((_, i) => i));
      expect((await cardsOf(res.body.id)).length, id).toBeGreaterThan(0);
    }
  });

  it('refuses an unknown template and creates nothing', async () => {
    const before = await workshopCount();
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { template: 'tea-party', title: 'x' },
    });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.path).toBe('template');
    expect(await workshopCount()).toBe(before);
  });
});

describe('template starter ideas', () => {
  it('puts starter ideas under their cluster', async () => {
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { template: 'design-sprint' },
    });
    const created = await cardsOf(res.body.id);
    const goal = created.find((c) => c.title === 'Long-term goal')!;
    const ideas = created.filter((c) => c.type === 'idea');
    expect(ideas).toMatchObject([{ title: 'Our goal in two years', parentId: goal.id, position: 0, color: null }]);
    expect(ideas[0]!.content).toMatch(/two years/);
    expect(created.map((c) => c.number)).toEqual([1, 2, 3, 4]);
  });
});
