import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import {
  createUser,
  eventLog,
  expectError,
  seedCard,
  seedCriterion,
  seedCurrentStep,
  seedMember,
  seedSection,
  seedWorkshop,
  type TestUser,
  errorOf,
} from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, eve] = useUsers(t, 'Ada', 'Bob', 'Eve');

function seedOrganization(name: string, members: Array<[TestUser, 'facilitator' | 'admin']>) {
  return t.write(async (tx, { organizations, organizationMembers }) => {
    const [org] = await tx.insert(organizations).values({ name }).returning();
    for (const [user, role] of members)
      await tx
        .insert(organizationMembers)
        .values({ organizationId: org!.id, userId: user.id, email: user.email, role });
    return org!;
  });
}

async function workshopCount() {
  return (await t.db.select().from(t.tables.workshops)).length;
}

async function workshopRow(id: string) {
  const { workshops } = t.tables;
  return (await t.db.select().from(workshops).where(eq(workshops.id, id)))[0];
}

describe('POST /v1/workshops (custom)', () => {
  it('creates a running workshop with the defaults and makes the creator a facilitator', async () => {
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { title: '  Planning  ', description: 'Q3', unknown: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Planning',
      description: 'Q3',
      state: 'running',
      current_step_id: null,
      owner: { id: ada.id, name: 'Ada', avatar_url: null, plan: { name: 'free', workshops_max_attendees: 100 } },
      sections: [],
      criteria: [],
      vote_limit: { positive: -1, negative: -1, max_positive: 3, max_negative: 3 },
      daily_mail: true,
      change_step_notifications: true,
      force_sync: false,
      public_url: `${t.deps.config.publicUrl}/workshops/${res.body.id}`,
    });
    expect(res.body.view).toEqual({
      card: null,
      card_sub_view: 'content',
      sort: 'position',
      sort_reverse: false,
      sort_criterium_id: null,
      show: 'cards',
      show_clusters: 'all',
      show_cluster_ids: [],
      card_status: 'active',
      card_author: 'all',
    });
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const row = (await workshopRow(res.body.id))!;
    expect(row.accessCode).toMatch(/^\d{9}$/);
    const { workshopMembers } = t.tables;
    const members = await t.db.select().from(workshopMembers).where(eq(workshopMembers.workshopId, res.body.id));
    expect(members).toMatchObject([{ userId: ada.id, role: 'facilitator' }]);
    const log = await eventLog(t, res.body.id);
    expect(log.map((e) => e.action)).toEqual(['createWorkshop']);
    expect(log[0]!.change).toMatchObject({ workshop: { id: res.body.id, title: 'Planning' } });
  });

  it('takes the settings and view members', async () => {
    const res = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: {
        title: 'Settings',
        daily_mail: false,
        change_step_notifications: false,
        force_sync: true,
        view: { sort: 'score', show: 'bars' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      daily_mail: false,
      change_step_notifications: false,
      force_sync: true,
      view: { sort: 'score', show: 'bars', card_status: 'active' },
    });
  });

  it('refuses bad input and changes nothing', async () => {
    const before = await workshopCount();
    const missing = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { description: 'no title' },
    });
    expectError(missing, 400, 'invalid_request');
    expect(errorOf(missing).details?.[0]?.path).toBe('title');
    const blank = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { title: '   ' },
    });
    expectError(blank, 400, 'invalid_request');
    const badView = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { title: 'x', view: { sort: 'sideways' } },
    });
    expectError(badView, 400, 'invalid_request');
    expect(errorOf(badView).details?.[0]?.path).toBe('view.sort');
    expectError(
      await t.request<WorkshopOutput>('POST', '/v1/workshops', {
        token: ada.token,
        body: { title: 'x', daily_mail: 'yes' },
      }),
      400,
      'invalid_request',
    );
    const dangling = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { title: 'x', view: { card: 'some-card' } },
    });
    expectError(dangling, 400, 'invalid_request');
    expect(errorOf(dangling).details?.[0]?.path).toBe('view.card');
    await expectRawBodyRefused(
      t,
      { path: '/v1/workshops', token: ada.token },
      { body: '{"title":', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { path: '/v1/workshops', token: ada.token },
      { body: 'title=x', contentType: 'text/plain' },
    );
    expectError(
      await t.request<WorkshopOutput>('POST', '/v1/workshops', { body: { title: 'x' } }),
      401,
      'unauthenticated',
    );
    expect(await workshopCount()).toBe(before);
  });
});

describe('POST /v1/organizations/:id/workshops', () => {
  it('lets facilitator and admin members create workshops owned by the organization', async () => {
    const org = await seedOrganization('Acme', [
      [ada, 'admin'],
      [bob, 'facilitator'],
    ]);
    for (const user of [ada, bob]) {
      const res = await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
        token: user.token,
        body: { title: `By ${user.name}`, force_sync: true },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        title: `By ${user.name}`,
        force_sync: true,
        owner: { id: org.id, name: 'Acme', plan: { name: 'team', workshops_max_attendees: 1000 } },
      });
      const row = (await workshopRow(res.body.id))!;
      expect(row).toMatchObject({ ownerType: 'organization', ownerId: org.id, createdBy: user.id });
    }
  });

  it('hides the organization from non-members and validates the body', async () => {
    const org = await seedOrganization('Hidden', [[ada, 'admin']]);
    const before = await workshopCount();
    expectError(
      await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
        token: eve.token,
        body: { title: 'x' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('POST', '/v1/organizations/nope/workshops', { token: ada.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
    expectError(
      await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, { token: ada.token, body: {} }),
      400,
      'invalid_request',
    );
    expect(await workshopCount()).toBe(before);
  });
});

describe('GET /v1/workshops/:id', () => {
  it('shows sections and criteria in order, with the ratings the caller may see', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Rated' });
    await seedMember(t, w.id, bob);
    const second = await seedSection(t, w.id, 'Second');
    const first = await seedSection(t, w.id, 'First');
    // Positions decide the order, not insertion.
    await t.write(sql`update sections set position = 1 - position where workshop_id = ${w.id}`);
    const criterion = await seedCriterion(t, w.id, { title: 'Impact', scale: 3 });
    const cluster = await seedCard(t, w.id, ada);
    await t.write(async (tx, { ratings }) => {
      await tx.insert(ratings).values([
        {
          id: 'r-ada',
          workshopId: w.id,
          cardId: cluster.id,
          criteriumId: criterion.id,
          userId: ada.id,
          value: 5,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
        {
          id: 'r-bob',
          workshopId: w.id,
          cardId: cluster.id,
          criteriumId: criterion.id,
          userId: bob.id,
          value: 10,
          createdAt: '2026-01-01T00:00:01.000Z',
          updatedAt: '2026-01-01T00:00:01.000Z',
        },
      ]);
    });

    const asAda = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: ada.token });
    expect(asAda.status).toBe(200);
    expect(asAda.body.sections).toEqual([
      { id: first.id, title: 'First' },
      { id: second.id, title: 'Second' },
    ]);
    expect(asAda.body.criteria).toEqual([
      {
        id: criterion.id,
        title: 'Impact',
        scale: 3,
        current_scale: [0, 5, 10],
        ratings: [
          { id: 'r-ada', value: 5, user_id: ada.id, criterium_id: criterion.id, card_id: cluster.id },
          { id: 'r-bob', value: 10, user_id: bob.id, criterium_id: criterion.id, card_id: cluster.id },
        ],
      },
    ]);
    const asBob = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: bob.token });
    expect(asBob.body.criteria[0]!.ratings).toHaveLength(2);

    await seedCurrentStep(t, w.id, { allow_display_ratings: false });
    const hidden = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: bob.token });
    expect(hidden.body.criteria[0]!.ratings.map((r: { id: string }) => r.id)).toEqual(['r-bob']);
    const facilitator = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: ada.token });
    expect(facilitator.body.criteria[0]!.ratings).toHaveLength(2);
  });

  it('answers 404 to strangers and for unknown ids', async () => {
    const w = await seedWorkshop(t, ada);
    expectError(
      await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: eve.token }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', '/v1/workshops/does-not-exist', { token: ada.token }), 404, 'not_found');
  });

  it('lets admins of the owning organization in as facilitators', async () => {
    const org = await seedOrganization('Admins', [[eve, 'admin']]);
    const w = await seedWorkshop(t, ada, { ownerType: 'organization', ownerId: org.id });
    const res = await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: eve.token });
    expect(res.status).toBe(200);
    expect(res.body.owner).toMatchObject({ id: org.id, name: 'Admins' });
  });
});

describe('GET /v1/user/me/workshops', () => {
  let carol: TestUser;
  let dan: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    [carol, dan] = [await createUser(t, 'Carol'), await createUser(t, 'Dan')];
    const org = await seedOrganization('Listing', [[carol, 'admin']]);
    ids.org = org.id;
    ids.own = (await seedWorkshop(t, carol, { title: 'own', createdAt: '2026-01-01T00:00:00.000Z' })).id;
    const joined = await seedWorkshop(t, dan, { title: 'joined', createdAt: '2026-02-01T00:00:00.000Z' });
    await seedMember(t, joined.id, carol);
    ids.joined = joined.id;
    ids.archived = (
      await seedWorkshop(t, carol, { title: 'archived', state: 'archived', createdAt: '2026-03-01T00:00:00.000Z' })
    ).id;
    ids.administered = (
      await seedWorkshop(t, dan, {
        title: 'administered',
        ownerType: 'organization',
        ownerId: org.id,
        createdAt: '2026-04-01T00:00:00.000Z',
      })
    ).id;
    await seedWorkshop(t, dan, { title: 'not mine', createdAt: '2026-05-01T00:00:00.000Z' });
  });

  const titles = async (query = '') => {
    const res = await t.request<WorkshopOutput[]>('GET', `/v1/user/me/workshops${query}`, { token: carol.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.map((w: { title: string }) => w.title);
  };

  it('lists member and administered workshops, newest first', async () => {
    expect(await titles()).toEqual(['administered', 'archived', 'joined', 'own']);
  });

  it('filters by role, owner, state and creation time', async () => {
    expect(await titles('?role=facilitator')).toEqual(['administered', 'archived', 'own']);
    expect(await titles('?role=attendee')).toEqual(['joined']);
    expect(await titles(`?owner=${ids.org}`)).toEqual(['administered']);
    expect(await titles(`?owner=${carol.id}`)).toEqual(['archived', 'own']);
    expect(await titles('?state=archived')).toEqual(['archived']);
    expect(await titles('?state=running')).toEqual(['administered', 'joined', 'own']);
    expect(await titles('?since=2026-02-01T00:00:00Z')).toEqual(['administered', 'archived', 'joined']);
    expect(await titles('?until=2026-02-15T00:00:00.000Z')).toEqual(['joined', 'own']);
    expect(await titles('?since=2026-01-15T00:00:00Z&until=2026-03-15T00:00:00Z&role=facilitator')).toEqual([
      'archived',
    ]);
  });

  it('refuses bad filters', async () => {
    for (const query of ['?role=owner', '?state=deleted', '?since=yesterday', '?until=2026-13-45']) {
      const res = await t.request<WorkshopOutput[]>('GET', `/v1/user/me/workshops${query}`, { token: carol.token });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe(query.slice(1, query.indexOf('=')));
    }
  });
});

describe('DELETE /v1/workshops/:id', () => {
  it('deletes the workshop and everything in it', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const cluster = await seedCard(t, w.id, ada);
    await seedCard(t, w.id, bob, { parentId: cluster.id });
    await seedCriterion(t, w.id);
    const res = await t.request('DELETE', `/v1/workshops/${w.id}`, { token: ada.token });
    expect(res.status).toBe(204);
    for (const table of ['workshops', 'workshop_members', 'cards', 'criteria', 'events']) {
      const column = table === 'workshops' ? 'id' : 'workshop_id';
      const [counted] = await t.rows<{ n: number | string }>(
        sql`select count(*) as n from ${sql.raw(table)} where ${sql.raw(column)} = ${w.id}`,
      );
      expect(Number(counted!.n), table).toBe(0);
    }
    expectError(
      await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: ada.token }),
      404,
      'not_found',
    );
  });

  it('is for facilitators of running workshops only', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    expectError(await t.request('DELETE', `/v1/workshops/${w.id}`, { token: bob.token }), 403, 'forbidden');
    expectError(await t.request('DELETE', `/v1/workshops/${w.id}`, { token: eve.token }), 404, 'not_found');
    const archived = await seedWorkshop(t, ada, { state: 'archived' });
    expectError(
      await t.request('DELETE', `/v1/workshops/${archived.id}`, { token: ada.token }),
      409,
      'workshop_archived',
    );
    expect(await workshopRow(w.id)).toBeDefined();
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});
