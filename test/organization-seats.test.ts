import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import {
  confirmAddress,
  createConfirmedUser,
  createUser,
  expectError,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { useServer, useSockets } from './helpers/cast';
import { until } from './helpers/wait';

/*
 * Organization seats follow a confirmed address: a seat added by address is linked to an account
 * only once that account's address is confirmed, never at signup, whichever came first; and it
 * arrives at confirmation for the token already in hand, on every instance, sockets included.
 */

const t = useServer();
/** A second instance on the same database. */
const other = useServer({}, () => ({ shareDatabaseOf: t }));
const sockets = useSockets(t);

type Role = 'admin' | 'facilitator';

let addresses = 0;
const freshAddress = (who: string) => `${who}-${process.pid}-${++addresses}-${Date.now()}@acme.example`;

/** An organization of a confirmed admin, with a workshop it owns and that workshop's access code. */
async function organizationScene() {
  const admin = await createConfirmedUser(t, 'Admin');
  const org = (
    await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
  ).body;
  const workshop = await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
    token: admin.token,
    body: { title: 'Acme planning' },
  });
  expect(workshop.status).toBe(201);
  return { admin, org, workshopId: workshop.body.id };
}

async function addMember(orgId: string, admin: TestUser, email: string, role: Role) {
  const res = await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${orgId}/members`, {
    token: admin.token,
    body: { email, role },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function signup(email: string, name: string, guestToken?: string) {
  const res = await t.request<{ token: string; user: { id: string } }>('POST', '/v1/auth/signup', {
    token: guestToken,
    body: { email, password: 'correct horse battery', name },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function seatOf(orgId: string, email: string) {
  const { organizationMembers } = t.tables;
  const rows = await t.db.select().from(organizationMembers).where(eq(organizationMembers.organizationId, orgId));
  return rows.find((row) => row.email === email);
}

const myOrganizations = async (token: string, server = t) =>
  (await server.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token })).body.map((o) => o.id);
const myWorkshops = async (token: string, server = t) =>
  (await server.request<WorkshopOutput[]>('GET', '/v1/user/me/workshops', { token })).body.map((w) => w.id);

/**
 * What a seat gives, read with the account's token: nothing at all before confirmation (the
 * organization, its members, its workshop and that workshop's access code are 404), and, for an
 * admin, all of it afterwards.
 */
async function expectOutside(token: string, org: { id: string }, workshopId: string, server = t) {
  expect(await myOrganizations(token, server)).toEqual([]);
  expect(await myWorkshops(token, server)).not.toContain(workshopId);
  expectError(await server.request('GET', `/v1/organizations/${org.id}`, { token }), 404, 'not_found');
  expectError(await server.request('GET', `/v1/organizations/${org.id}/members`, { token }), 404, 'not_found');
  expectError(
    await server.request('POST', `/v1/organizations/${org.id}/workshops`, { token, body: { title: 'Mine now' } }),
    404,
    'not_found',
  );
  expectError(
    await server.request('POST', `/v1/organizations/${org.id}/members`, {
      token,
      body: { email: freshAddress('friend'), role: 'admin' },
    }),
    404,
    'not_found',
  );
  expectError(await server.request('GET', `/v1/workshops/${workshopId}`, { token }), 404, 'not_found');
  expectError(await server.request('GET', `/v1/workshops/${workshopId}/access_code`, { token }), 404, 'not_found');
}

async function expectInside(token: string, role: Role, org: { id: string }, workshopId: string, server = t) {
  expect(await myOrganizations(token, server)).toEqual([org.id]);
  expect((await server.request('GET', `/v1/organizations/${org.id}`, { token })).status).toBe(200);
  expect((await server.request('GET', `/v1/organizations/${org.id}/members`, { token })).status).toBe(200);
  if (role === 'admin') {
    expect(await myWorkshops(token, server)).toContain(workshopId);
    expect((await server.request('GET', `/v1/workshops/${workshopId}`, { token })).status).toBe(200);
    const code = await server.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
      token,
    });
    expect(code.status).toBe(200);
    expect(code.body.access_code).toMatch(/^\d{3}-\d{3}-\d{3}$/);
  } else {
    // A facilitator member creates the organization's workshops; its others stay the admins'.
    expect(
      (await server.request('POST', `/v1/organizations/${org.id}/workshops`, { token, body: { title: 'Mine' } }))
        .status,
    ).toBe(201);
    expectError(await server.request('GET', `/v1/workshops/${workshopId}`, { token }), 404, 'not_found');
  }
}

describe('an organization seat added by address', () => {
  for (const role of ['admin', 'facilitator'] as const) {
    it(`added before the account exists (${role}): signing up gives nothing, confirming gives the seat`, async () => {
      const { admin, org, workshopId } = await organizationScene();
      const email = freshAddress(`new-${role}`);
      const seat = await addMember(org.id, admin, email, role);
      expect(seat).toMatchObject({ email, role, pending: true });
      const [invitation] = await t.rows<{ subject: string; text: string }>(
        sql`select subject, text from outbox where "to" = ${email} order by rowid`,
      );
      expect(invitation!.subject).toContain('Acme');
      expect(invitation!.text).toContain('confirm');

      const account = await signup(email, 'Newhire');
      expect((await seatOf(org.id, email))!.userId).toBeNull();
      await expectOutside(account.token, org, workshopId);
      const listed = (
        await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, {
          token: admin.token,
        })
      ).body;
      expect(listed.find((m) => m.id === seat.id)).toEqual(seat);

      await confirmAddress(t, email, account.token);
      expect((await seatOf(org.id, email))!.userId).toBe(account.user.id);
      await expectInside(account.token, role, org, workshopId);
      const after = (
        await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, {
          token: admin.token,
        })
      ).body;
      expect(after.find((m) => m.id === seat.id)).toMatchObject({ email, name: 'Newhire', role, pending: false });
    });

    it(`added after an unconfirmed account registered the address (${role}): the seat waits for confirmation`, async () => {
      const { admin, org, workshopId } = await organizationScene();
      const email = freshAddress(`early-${role}`);
      const account = await signup(email, 'Early');
      const seat = await addMember(org.id, admin, email, role);
      expect(seat).toEqual({
        id: expect.any(String),
        email,
        name: email.split('@')[0],
        avatar_url: null,
        role,
        pending: true,
      });
      expect((await seatOf(org.id, email))!.userId).toBeNull();
      const mails = await t.rows<{ subject: string; text: string }>(
        sql`select subject, text from outbox where "to" = ${email} and subject like '%Acme%'`,
      );
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain('confirm');
      await expectOutside(account.token, org, workshopId);
      // Added twice is still refused while pending.
      expectError(
        await t.request('POST', `/v1/organizations/${org.id}/members`, { token: admin.token, body: { email, role } }),
        409,
        'already_member',
      );

      await confirmAddress(t, email, account.token);
      await expectInside(account.token, role, org, workshopId);
    });
  }

  it('links a confirmed account at once, as before', async () => {
    const { admin, org, workshopId } = await organizationScene();
    const confirmed = await createConfirmedUser(t, 'Confirmed');
    expect(await addMember(org.id, admin, confirmed.email, 'admin')).toMatchObject({
      pending: false,
      name: 'Confirmed',
    });
    await expectInside(confirmed.token, 'admin', org, workshopId);
  });

  it('a guest signing up with the address gets the seat only once it is confirmed', async () => {
    const { admin, org, workshopId } = await organizationScene();
    const host = await createUser(t, 'Host');
    const personal = await seedWorkshop(t, host);
    const code = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${personal.id}/access_code`, { token: host.token })
    ).body.access_code;
    const guest = await t.request<{ token: string; user: { id: string } }>('POST', '/v1/workshops/join/guest', {
      body: { access_code: code, name: 'Gina' },
    });
    expect(guest.status).toBe(201);
    const email = freshAddress('guest');
    await addMember(org.id, admin, email, 'admin');

    const upgraded = await signup(email, 'Gina Account', guest.body.token);
    expect(upgraded.user.id).toBe(guest.body.user.id);
    expect((await seatOf(org.id, email))!.userId).toBeNull();
    await expectOutside(guest.body.token, org, workshopId);
    await expectOutside(upgraded.token, org, workshopId);

    await confirmAddress(t, email, guest.body.token);
    await expectInside(guest.body.token, 'admin', org, workshopId);
  });

  it('arrives at confirmation for the token in hand, on every instance, and its sockets may join', async () => {
    const { admin, org, workshopId } = await organizationScene();
    const email = freshAddress('live');
    await addMember(org.id, admin, email, 'admin');
    const account = await signup(email, 'Live');
    const user: TestUser = { token: account.token, id: account.user.id, email, name: 'Live' };
    // Both instances have read the account's token and what it sees before the confirmation.
    await expectOutside(account.token, org, workshopId);
    await expectOutside(account.token, org, workshopId, other);
    const here = await sockets.connected(user);
    const there = await sockets.connected(user, other);
    expect(await here.join(workshopId)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await there.join(workshopId)).toMatchObject({ ok: false, error: { code: 'not_found' } });

    await confirmAddress(other, email, account.token);
    await expectInside(account.token, 'admin', org, workshopId);
    await expectInside(account.token, 'admin', org, workshopId, other);
    expect(await here.join(workshopId)).toMatchObject({ ok: true });
    expect(await there.join(workshopId)).toMatchObject({ ok: true });
  });

  it("moves a participant's sockets to the facilitators' room when their admin seat arrives", async () => {
    const { admin, org, workshopId } = await organizationScene();
    const email = freshAddress('participant');
    await addMember(org.id, admin, email, 'admin');
    const account = await signup(email, 'Pia');
    const user: TestUser = { token: account.token, id: account.user.id, email, name: 'Pia' };
    const code = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, { token: admin.token })
    ).body.access_code;
    expect(
      (await t.request('POST', '/v1/workshops/join', { token: user.token, body: { access_code: code } })).status,
    ).toBe(200);
    await sockets.joined(user, workshopId);
    expect(await roomsOf(user.id)).toContain(`workshop:${workshopId}:participants`);

    await confirmAddress(t, email, user.token);
    await until(
      async () => (await roomsOf(user.id)).includes(`workshop:${workshopId}:facilitators`),
      "the new admin's socket among the facilitators",
      2_000,
    );
    expect(await roomsOf(user.id)).not.toContain(`workshop:${workshopId}:participants`);
  });
});

describe('an address its owner proves after someone else signed up with it', () => {
  it("leaves whoever signed up with a pending member's address no session, password or live connection once the owner confirms from the mail, and the seat goes to the confirmed account", async () => {
    const { admin, org, workshopId } = await organizationScene();
    const email = freshAddress('owner');
    await addMember(org.id, admin, email, 'admin');
    // Someone else signs up with the address first: their token is read on both instances, and
    // holds a live connection.
    const impostor = await signup(email, 'Not the owner');
    const user: TestUser = { token: impostor.token, id: impostor.user.id, email, name: 'Not the owner' };
    await expectOutside(impostor.token, org, workshopId);
    await expectOutside(impostor.token, org, workshopId, other);
    const live = await sockets.connected(user);
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));

    // The owner opens the mail's link without signing in: the console's "confirm without signing in".
    await confirmAddress(t, email);

    expect((await seatOf(org.id, email))!.userId).toBe(impostor.user.id);
    for (const server of [t, other])
      expectError(await server.request('GET', '/v1/user/me', { token: impostor.token }), 401, 'unauthenticated');
    expect(await ended).toBe('io server disconnect');
    expectError(
      await t.request('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } }),
      401,
      'invalid_credentials',
    );
  });
});

/** The rooms this instance has the user's sockets in. */
async function roomsOf(userId: string): Promise<string[]> {
  const all = await t.server.realtime.io.fetchSockets();
  return all.filter((socket) => socket.data.user.id === userId).flatMap((socket) => [...socket.rooms]);
}
