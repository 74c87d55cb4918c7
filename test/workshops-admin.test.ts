import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { newId, nowIso } from '../src/db/columns';
import type { UserRoleOutput } from '../src/domain/workshops';
import {
  eventLog,
  expectError,
  seedCard,
  seedCriterion,
  seedMember,
  seedSection,
  seedWorkshop,
  type TestUser,
  errorOf,
} from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, cat, eve] = useUsers(t, 'Ada', 'Bob', 'Cat', 'Eve');

function membersOf(workshopId: string) {
  return t.db.select().from(t.tables.workshopMembers).where(eq(t.tables.workshopMembers.workshopId, workshopId));
}

describe('GET /v1/workshops/:id/access_code', () => {
  it('shows the code with dashes to facilitators only', async () => {
    const w = await seedWorkshop(t, ada, { accessCode: '012345678' });
    await seedMember(t, w.id, bob);
    const res = await t.request('GET', `/v1/workshops/${w.id}/access_code`, { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_code: '012-345-678',
      join_url: expect.stringMatching(new RegExp(`^${t.deps.config.publicUrl}/join#key=${w.id}\\.[\\w-]{22}$`)),
    });
    expectError(await t.request('GET', `/v1/workshops/${w.id}/access_code`, { token: bob.token }), 403, 'forbidden');
    expectError(await t.request('GET', `/v1/workshops/${w.id}/access_code`, { token: eve.token }), 404, 'not_found');
  });

  it('stays readable in an archived workshop', async () => {
    const w = await seedWorkshop(t, ada, { state: 'archived', accessCode: '999888777' });
    expect((await t.request('GET', `/v1/workshops/${w.id}/access_code`, { token: ada.token })).body).toEqual({
      access_code: '999-888-777',
      join_url: expect.stringContaining('/join#key='),
    });
  });
});

describe('user roles', () => {
  it('lists the members to facilitators only', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    expectError(await t.request('GET', `/v1/workshops/${w.id}/user_roles`, { token: bob.token }), 403, 'forbidden');
    const res = await t.request('GET', `/v1/workshops/${w.id}/user_roles`, { token: ada.token });
    expect(res.status).toBe(200);
    const ids = Object.fromEntries((await membersOf(w.id)).map((m) => [m.userId, m.id]));
    // Both rows were seeded within the same millisecond, so their order is not asserted.
    expect(res.body).toHaveLength(2);
    expect(res.body).toEqual(
      expect.arrayContaining([
        { id: ids[ada.id], user_id: ada.id, role: 'facilitator', name: 'Ada', guest: false },
        { id: ids[bob.id], user_id: bob.id, role: 'participant', name: 'Bob', guest: false },
      ]),
    );
    expectError(await t.request('GET', `/v1/workshops/${w.id}/user_roles`, { token: eve.token }), 404, 'not_found');
  });

  it('promotes and demotes, logging updateMember', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const bobMember = (await membersOf(w.id)).find((m) => m.userId === bob.id)!;
    const promoted = await t.request<UserRoleOutput>('PUT', `/v1/workshops/${w.id}/user_roles/${bobMember.id}`, {
      token: ada.token,
      body: { role: 'facilitator' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({
      id: bobMember.id,
      user_id: bob.id,
      role: 'facilitator',
      name: 'Bob',
      guest: false,
    });
    // Bob is a facilitator now and may demote Ada, since he remains.
    const adaMember = (await membersOf(w.id)).find((m) => m.userId === ada.id)!;
    const demoted = await t.request<UserRoleOutput>('PUT', `/v1/workshops/${w.id}/user_roles/${adaMember.id}`, {
      token: bob.token,
      body: { role: 'participant' },
    });
    expect(demoted.body.role).toBe('participant');
    const log = await eventLog(t, w.id);
    expect(log.map((e) => e.action)).toEqual(['updateMember', 'updateMember']);
    expect(log[0]!.change).toEqual({
      member: { id: bobMember.id, user_id: bob.id, role: 'facilitator', name: 'Bob', guest: false },
      changes: { role: ['participant', 'facilitator'] },
    });
  });

  it('keeps the last facilitator and refuses bad requests', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const adaMember = (await membersOf(w.id)).find((m) => m.userId === ada.id)!;
    const bobMember = (await membersOf(w.id)).find((m) => m.userId === bob.id)!;
    const path = (id: string) => `/v1/workshops/${w.id}/user_roles/${id}`;
    expectError(
      await t.request('PUT', path(adaMember.id), { token: ada.token, body: { role: 'participant' } }),
      409,
      'conflict',
    );
    const bad = await t.request('PUT', path(bobMember.id), { token: ada.token, body: { role: 'admin' } });
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('role');
    expectError(await t.request('PUT', path(bobMember.id), { token: ada.token, body: {} }), 400, 'invalid_request');
    expectError(
      await t.request('PUT', path(bobMember.id), { token: bob.token, body: { role: 'facilitator' } }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('PUT', path(bobMember.id), { token: eve.token, body: { role: 'facilitator' } }),
      404,
      'not_found',
    );
    const other = await seedWorkshop(t, cat);
    const catMember = (await membersOf(other.id))[0]!;
    expectError(
      await t.request('PUT', path(catMember.id), { token: ada.token, body: { role: 'participant' } }),
      404,
      'not_found',
    );
    expect((await membersOf(w.id)).map((m) => m.role).sort()).toEqual(['facilitator', 'participant']);
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});

describe('bulk deletes', () => {
  async function seedFeedback(workshopId: string) {
    const cluster = await seedCard(t, workshopId, ada);
    const criterion = await seedCriterion(t, workshopId);
    const section = await seedSection(t, workshopId);
    const now = nowIso();
    const base = { workshopId, cardId: cluster.id, userId: bob.id };
    await t.write(async (tx, { votes, ratings, items, comments, attachments }) => {
      await tx.insert(votes).values([
        { ...base, value: 1 },
        { ...base, value: -1 },
      ]);
      await tx.insert(ratings).values({ ...base, criteriumId: criterion.id, value: 3 });
      await tx.insert(items).values([
        { ...base, sectionId: section.id, content: 'a' },
        { ...base, sectionId: section.id, content: 'b' },
        { ...base, sectionId: section.id, content: 'c' },
      ]);
      await tx.insert(comments).values({ ...base, content: 'hello', createdAt: now });
      await tx.insert(attachments).values({
        ...base,
        id: newId(),
        name: 'f.txt',
        fileKey: 'k',
        container: 'uploads',
        mimetype: 'text/plain',
        size: 1,
      });
    });
  }
  const kinds = ['votes', 'ratings', 'items', 'comments', 'attachments'] as const;
  const countIn = async (kind: (typeof kinds)[number], workshopId: string) => {
    const table = t.tables[kind];
    return (await t.db.select().from(table).where(eq(table.workshopId, workshopId))).length;
  };

  it('deletes all of one kind in the workshop, with one event and the count', async () => {
    const w = await seedWorkshop(t, ada);
    const other = await seedWorkshop(t, ada);
    await seedFeedback(w.id);
    await seedFeedback(other.id);
    const expected = { votes: 2, ratings: 1, items: 3, comments: 1, attachments: 1 };
    const actions = {
      votes: 'removeVotes',
      ratings: 'removeRatings',
      items: 'removeItems',
      comments: 'removeComments',
      attachments: 'removeAttachments',
    };
    for (const kind of kinds) {
      const res = await t.request('DELETE', `/v1/workshops/${w.id}/${kind}`, { token: ada.token });
      expect(res.status, kind).toBe(204);
      expect(await countIn(kind, w.id), kind).toBe(0);
      expect(await countIn(kind, other.id), kind).toBe(expected[kind]);
      const last = (await eventLog(t, w.id)).at(-1)!;
      expect([last.action, last.change]).toEqual([actions[kind], { count: expected[kind] }]);
    }
    expect(await eventLog(t, w.id)).toHaveLength(5);
  });

  it('is for facilitators of running workshops', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    await seedFeedback(w.id);
    expectError(await t.request('DELETE', `/v1/workshops/${w.id}/votes`, { token: bob.token }), 403, 'forbidden');
    expectError(await t.request('DELETE', `/v1/workshops/${w.id}/comments`, { token: eve.token }), 404, 'not_found');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(
      await t.request('DELETE', `/v1/workshops/${w.id}/items`, { token: ada.token }),
      409,
      'workshop_archived',
    );
    expect(await countIn('votes', w.id)).toBe(2);
    expect(await countIn('comments', w.id)).toBe(1);
    expect(await countIn('items', w.id)).toBe(3);
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});

describe('POST /v1/workshops/:id/messages', () => {
  const messages = async (user: TestUser, workshopId: string) =>
    (await t.db.select().from(t.tables.notifications).where(eq(t.tables.notifications.userId, user.id))).filter(
      (n) => n.type === 'message' && (n.data.workshop as { id: string }).id === workshopId,
    );

  it('notifies every member but the sender', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Town hall' });
    await seedMember(t, w.id, bob);
    await seedMember(t, w.id, cat, 'facilitator');
    const res = await t.request('POST', `/v1/workshops/${w.id}/messages`, {
      token: ada.token,
      body: { content: 'Break until 11:00' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ recipients: 2 });
    const data = {
      workshop: { id: w.id, title: 'Town hall', public_url: `${t.deps.config.publicUrl}/workshops/${w.id}` },
      content: 'Break until 11:00',
      from: { id: ada.id, name: 'Ada', avatar_url: null, guest: false },
    };
    expect((await messages(bob, w.id)).map((n) => n.data)).toEqual([data]);
    expect((await messages(cat, w.id)).map((n) => n.data)).toEqual([data]);
    expect(await messages(ada, w.id)).toEqual([]);
    const [event] = await eventLog(t, w.id);
    expect([event!.action, event!.change]).toEqual([
      'addMessage',
      { message: { content: 'Break until 11:00', include_me: false, recipients: 2 } },
    ]);

    const withMe = await t.request('POST', `/v1/workshops/${w.id}/messages`, {
      token: ada.token,
      body: { content: 'Back', include_me: true },
    });
    expect(withMe.body).toEqual({ recipients: 3 });
    expect(await messages(ada, w.id)).toHaveLength(1);
  });

  it('refuses bad input, participants, strangers and archived workshops', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const path = `/v1/workshops/${w.id}/messages`;
    const missing = await t.request('POST', path, { token: ada.token, body: { include_me: true } });
    expectError(missing, 400, 'invalid_request');
    expect(errorOf(missing).details?.[0]?.path).toBe('content');
    expectError(
      await t.request('POST', path, { token: ada.token, body: { content: 'x', include_me: 'yes' } }),
      400,
      'invalid_request',
    );
    expectError(await t.request('POST', path, { token: bob.token, body: { content: 'x' } }), 403, 'forbidden');
    expectError(await t.request('POST', path, { token: eve.token, body: { content: 'x' } }), 404, 'not_found');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(await t.request('POST', path, { token: ada.token, body: { content: 'x' } }), 409, 'workshop_archived');
    expect(await messages(bob, w.id)).toEqual([]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});
