import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { EventOutput } from '../src/modules/events/schemas';
import type { ParticipationOutput } from '../src/modules/participation/schemas';
import type { UserOutput } from '../src/modules/users/schemas';
import { joinWorkshop } from '../src/modules/workshops/join';
import type { GuestSessionOutput } from '../src/modules/workshops/schemas';
import type { UserRoleOutput } from '../src/domain/workshops';
import { useServer, useSockets } from './helpers/cast';
import {
  createUser,
  expectError,
  multipart,
  pngImage,
  seedCard,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';

/*
 * Guests (docs/api.md#guests): joining with the code and a name, what their token reaches, keeping
 * guests out, a guest turning into an account, guests shown as such; and a room of 300 behind one
 * address. Over real HTTP and Socket.IO, on the run's store.
 */

const t = useServer();
const sockets = useSockets(t);
/** A server whose free plan seats two participants. */
const useServerLimits = useServer({ plans: { free: { name: 'free', workshops_max_attendees: 2 } } });

const codeOf = async (facilitator: TestUser, workshopId: string) =>
  (
    await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
      token: facilitator.token,
    })
  ).body.access_code;

async function joinAsGuest(server: TestServer, accessCode: string, name: string) {
  return server.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', {
    body: { access_code: accessCode, name },
  });
}

async function joinWithKey(server: TestServer, joinKey: string, name: string) {
  return server.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', { body: { join_key: joinKey, name } });
}

/** The key of the workshop's join link, as its facilitator reads it. */
async function joinKeyOf(server: TestServer, facilitator: TestUser, workshopId: string): Promise<string> {
  const res = await server.request<{ join_url: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
    token: facilitator.token,
  });
  const key = /#key=(.+)$/.exec(res.body.join_url ?? '')?.[1];
  expect(key, JSON.stringify(res.body)).toBeDefined();
  return key!;
}

/** `count` requests, `concurrency` at a time (as a crowd arrives, and within what the test machine takes), in order. */
async function inBatches<T>(count: number, concurrency: number, request: (index: number) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let start = 0; start < count; start += concurrency) {
    answers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(concurrency, count - start) }, (_, i) => request(start + i)),
      )),
    );
  }
  return answers;
}

/** A facilitator's workshop and its code. */
async function openWorkshop(values: Parameters<typeof seedWorkshop>[2] = {}) {
  const facilitator = await createUser(t, 'Facilitator');
  const workshop = await seedWorkshop(t, facilitator, values);
  return { facilitator, workshop, code: await codeOf(facilitator, workshop.id) };
}

/** A guest in a fresh workshop, as a `TestUser` (their token and id). */
async function guestIn(code: string, name = 'Gina'): Promise<TestUser & { session: GuestSessionOutput }> {
  const res = await joinAsGuest(t, code, name);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email: '', name, session: res.body };
}

describe('joining as a guest', () => {
  it('answers a token, a guest user without e-mail, and the workshop; the guest is a participant', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const res = await joinAsGuest(t, code.replace(/-/g, ' '), '  Gina  ');
    expect(res.status).toBe(201);
    const { token, user, workshop: joined } = res.body;
    expect(token).toEqual(expect.any(String));
    expect(user).toMatchObject({ name: 'Gina', guest: true, email: null, confirmed_at: null });
    expect(joined.id).toBe(workshop.id);
    expect(joined.allow_guests).toBe(true);
    const roles = await t.request<UserRoleOutput[]>('GET', `/v1/workshops/${workshop.id}/user_roles`, {
      token: facilitator.token,
    });
    expect(roles.body.find((role) => role.user_id === user.id)).toMatchObject({
      role: 'participant',
      name: 'Gina',
      guest: true,
    });
    const me = await t.request<UserOutput>('GET', '/v1/user/me', { token });
    expect(me.body).toMatchObject({ id: user.id, guest: true, email: null });
  });

  it('makes a new guest on each call, even with the same name', async () => {
    const { code } = await openWorkshop();
    const first = await guestIn(code, 'Sam');
    const second = await guestIn(code, 'Sam');
    expect(second.id).not.toBe(first.id);
    expect(second.token).not.toBe(first.token);
  });

  it('refuses a wrong code (404), a missing or over-long name (400), and an archived workshop (404)', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    expectError(await joinAsGuest(t, '000-000-000', 'Nobody'), 404, 'not_found');
    expectError(await joinAsGuest(t, code, '   '), 400, 'invalid_request');
    expectError(await joinAsGuest(t, code, 'x'.repeat(61)), 400, 'invalid_request');
    expect((await joinAsGuest(t, code, 'x'.repeat(60))).status).toBe(201);
    expectError(
      await t.request('POST', '/v1/workshops/join/guest', { body: { access_code: code } }),
      400,
      'invalid_request',
    );
    await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: facilitator.token, body: { state: 'archived' } });
    expectError(await joinAsGuest(t, code, 'Late'), 404, 'not_found');
  });

  it('answers 403 guests_not_allowed once the facilitator keeps guests out; guests already in keep their seat', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const inside = await guestIn(code);
    const closed = await t.request<{ allow_guests: boolean }>('PUT', `/v1/workshops/${workshop.id}`, {
      token: facilitator.token,
      body: { allow_guests: false },
    });
    expect(closed.body.allow_guests).toBe(false);
    expectError(await joinAsGuest(t, code, 'Too late'), 403, 'guests_not_allowed');
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: inside.token })).status).toBe(200);
    // Members still join with the code.
    const member = await createUser(t, 'Member');
    expect(
      (await t.request('POST', '/v1/workshops/join', { token: member.token, body: { access_code: code } })).status,
    ).toBe(200);
    // A participant cannot change it.
    expectError(
      await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: inside.token, body: { allow_guests: true } }),
      403,
      'forbidden',
    );
  });

  it("counts guests against the owner's plan (409 attendee_limit_reached)", async () => {
    const small = useServerLimits;
    const facilitator = await createUser(small, 'Small');
    const workshop = await seedWorkshop(small, facilitator);
    const code = (
      await small.request<{ access_code: string }>('GET', `/v1/workshops/${workshop.id}/access_code`, {
        token: facilitator.token,
      })
    ).body.access_code;
    expect((await joinAsGuest(small, code, 'One')).status).toBe(201);
    expect((await joinAsGuest(small, code, 'Two')).status).toBe(201);
    expectError(await joinAsGuest(small, code, 'Three'), 409, 'attendee_limit_reached');
  });

  it("gives the guest's token 7 days after its last use", async () => {
    const { code } = await openWorkshop();
    const guest = await guestIn(code);
    const { authTokens } = t.tables;
    const [row] = await t.db
      .select({ expiresAt: authTokens.expiresAt })
      .from(authTokens)
      .where(eq(authTokens.userId, guest.id));
    const days = (Date.parse(row!.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
  });
});

describe("a guest's token", () => {
  it('works as a participant in their workshop, and 404s on any other', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code);
    const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    const idea = await t.request<{ id: string; user_id: string }>('POST', `/v1/workshops/${workshop.id}/cards`, {
      token: guest.token,
      body: { type: 'idea', title: 'Guest idea', parent: cluster.id },
    });
    expect(idea.status).toBe(201);
    expect(idea.body.user_id).toBe(guest.id);
    expect(
      (
        await t.request('POST', `/v1/workshops/${workshop.id}/cards/${idea.body.id}/votes`, {
          token: guest.token,
          body: { value: 1 },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await t.request('POST', `/v1/workshops/${workshop.id}/cards/${idea.body.id}/comments`, {
          token: guest.token,
          body: { content: 'Mine' },
        })
      ).status,
    ).toBe(201);
    // Facilitators' routes stay closed, as for any participant.
    expectError(
      await t.request('GET', `/v1/workshops/${workshop.id}/access_code`, { token: guest.token }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('POST', `/v1/workshops/${workshop.id}/steps`, { token: guest.token, body: { name: 'Mine' } }),
      403,
      'forbidden',
    );

    const other = await openWorkshop();
    expectError(await t.request('GET', `/v1/workshops/${other.workshop.id}`, { token: guest.token }), 404, 'not_found');
    expectError(
      await t.request('GET', `/v1/workshops/${other.workshop.id}/cards`, { token: guest.token }),
      404,
      'not_found',
    );
  });

  it('uploads a file and attaches it to a card of its workshop', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code);
    const card = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    const upload = await t.request<{ key: string; container: string }>('POST', '/v1/uploads', {
      token: guest.token,
      rawBody: multipart('file', await pngImage(4, 4), { name: 'sketch.png', type: 'image/png' }),
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const attached = await t.request<{ user_id: string }>(
      'POST',
      `/v1/workshops/${workshop.id}/cards/${card.id}/attachments`,
      { token: guest.token, body: { blob: { key: upload.body.key, container: upload.body.container } } },
    );
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    expect(attached.body.user_id).toBe(guest.id);
  });

  it('reads and renames its own account, reads its notifications and logs out', async () => {
    const { code } = await openWorkshop();
    const guest = await guestIn(code);
    expect(
      (await t.request('PUT', '/v1/user/me', { token: guest.token, body: { display_name: 'Gina G.' } })).status,
    ).toBe(204);
    expect((await t.request<UserOutput>('GET', '/v1/user/me', { token: guest.token })).body.name).toBe('Gina G.');
    // No longer than the name a guest joins with.
    expectError(
      await t.request('PUT', '/v1/user/me', { token: guest.token, body: { display_name: 'x'.repeat(61) } }),
      400,
      'invalid_request',
    );
    expect((await t.request('GET', '/v1/user/me/notifications', { token: guest.token })).status).toBe(200);
    expect((await t.request('PUT', '/v1/user/me/notifications/read', { token: guest.token, body: {} })).status).toBe(
      204,
    );
    expect((await t.request('POST', '/v1/auth/logout', { token: guest.token })).status).toBe(204);
    expectError(await t.request('GET', '/v1/user/me', { token: guest.token }), 401, 'unauthenticated');
  });

  it('is refused with 403 everywhere else: workshops, organizations, joining, invitations, avatar, lists', async () => {
    const { code } = await openWorkshop();
    const guest = await guestIn(code);
    const other = await openWorkshop();
    const refused: Array<[string, string, Parameters<TestServer['request']>[2]]> = [
      ['POST', '/v1/workshops', { body: { title: 'Mine' } }],
      ['POST', '/v1/organizations', { body: { name: 'Mine' } }],
      ['POST', '/v1/workshops/join', { body: { access_code: other.code } }],
      ['POST', '/v1/invitations/some-token/accept', {}],
      ['PUT', '/v1/user/me/avatar', { rawBody: multipart('avatar', 'x', { name: 'a.png', type: 'image/png' }) }],
      ['POST', '/v1/user/me/confirmation', {}],
      ['GET', '/v1/user/me/workshops', {}],
      ['GET', '/v1/user/me/organizations', {}],
      ['GET', '/v1/templates', {}],
    ];
    for (const [method, path, options] of refused) {
      expectError(await t.request(method, path, { ...options, token: guest.token }), 403, 'forbidden');
    }
    // Nothing was made on the way.
    const { workshopMembers } = t.tables;
    expect(await t.db.select().from(workshopMembers).where(eq(workshopMembers.userId, guest.id))).toHaveLength(1);
  });

  it('joins its workshop over Socket.IO and no other, and shows in presence as a guest', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code, 'Pia');
    const watcher = await sockets.joined(facilitator, workshop.id);
    const client = await sockets.connected(guest);
    expect(await client.join(workshop.id)).toMatchObject({ ok: true });
    const other = await openWorkshop();
    const refused = await client.join(other.workshop.id);
    expect(refused.ok).toBe(false);
    const presence = await watcher.next('presence', (p) => p.users.some((u: { id: string }) => u.id === guest.id));
    expect(presence.users.find((u: { id: string }) => u.id === guest.id)).toEqual({
      id: guest.id,
      name: 'Pia',
      avatar_url: null,
      guest: true,
    });
  });
});

describe('a guest shown as such', () => {
  it('in the event log, the participation and the user roles', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code, 'Eve');
    const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    const idea = await t.request<{ id: string }>('POST', `/v1/workshops/${workshop.id}/cards`, {
      token: guest.token,
      body: { type: 'idea', title: 'Eve idea', parent: cluster.id },
    });
    await t.request('POST', `/v1/workshops/${workshop.id}/cards/${idea.body.id}/votes`, {
      token: guest.token,
      body: { value: 1 },
    });
    const events = await t.request<EventOutput[]>('GET', `/v1/workshops/${workshop.id}/events`, {
      token: facilitator.token,
    });
    const added = events.body.find((event) => event.action === 'addCard' && event.user?.id === guest.id);
    expect(added?.user).toMatchObject({ name: 'Eve', guest: true, email: null });
    const joined = events.body.find((event) => event.action === 'addMember');
    expect(joined?.change).toMatchObject({ member: { user_id: guest.id, name: 'Eve', guest: true } });
    const participation = await t.request<ParticipationOutput>('GET', `/v1/workshops/${workshop.id}/participation`, {
      token: facilitator.token,
    });
    expect(participation.body.users).toEqual([{ id: guest.id, name: 'Eve', guest: true, votes_used: 1, ratings: 0 }]);
  });

  it('gets no second seat, whichever route or service asks', async () => {
    const { code } = await openWorkshop();
    const guest = await guestIn(code);
    const other = await openWorkshop();
    const { users } = t.tables;
    const [row] = await t.db.select().from(users).where(eq(users.id, guest.id));
    // The route turns the token away (guestScope); the rule itself is the service's.
    await expect(joinWorkshop(t.deps, row!, { access_code: other.code.replace(/-/g, '') })).rejects.toMatchObject({
      code: 'forbidden',
    });
    const { workshopMembers } = t.tables;
    expect(await t.db.select().from(workshopMembers).where(eq(workshopMembers.userId, guest.id))).toHaveLength(1);
  });

  it('cannot be made a facilitator until they sign up', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code);
    const roles = await t.request<UserRoleOutput[]>('GET', `/v1/workshops/${workshop.id}/user_roles`, {
      token: facilitator.token,
    });
    const seat = roles.body.find((role) => role.user_id === guest.id)!;
    expectError(
      await t.request('PUT', `/v1/workshops/${workshop.id}/user_roles/${seat.id}`, {
        token: facilitator.token,
        body: { role: 'facilitator' },
      }),
      409,
      'conflict',
    );
    await t.request('POST', '/v1/auth/signup', {
      token: guest.token,
      body: { email: `promoted-${guest.id}@example.test`, password: 'correct horse battery', name: 'Now a user' },
    });
    const promoted = await t.request<UserRoleOutput>('PUT', `/v1/workshops/${workshop.id}/user_roles/${seat.id}`, {
      token: facilitator.token,
      body: { role: 'facilitator' },
    });
    expect(promoted.body).toMatchObject({ role: 'facilitator', guest: false });
  });
});

describe('a guest signing up', () => {
  it('shows in presence as an account, under the new name, once signed up, without connecting again', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code, 'Ola');
    const watcher = await sockets.joined(facilitator, workshop.id);
    expect(await (await sockets.connected(guest)).join(workshop.id)).toMatchObject({ ok: true });
    await watcher.next('presence', (p) =>
      p.users.some((u: { id: string; guest: boolean }) => u.id === guest.id && u.guest),
    );
    const signup = await t.request('POST', '/v1/auth/signup', {
      token: guest.token,
      body: { email: `ola-${guest.id}@example.test`, password: 'correct horse battery', name: 'Ola Account' },
    });
    expect(signup.status).toBe(201);
    const after = await watcher.next('presence', (p) =>
      p.users.some((u: { id: string; guest: boolean }) => u.id === guest.id && !u.guest),
    );
    expect(after.users.find((u: { id: string }) => u.id === guest.id)).toEqual({
      id: guest.id,
      name: 'Ola Account',
      avatar_url: null,
      guest: false,
    });
    // A rename shows the same way.
    await t.request('PUT', '/v1/user/me', { token: guest.token, body: { display_name: 'Ola Renamed' } });
    await watcher.next('presence', (p) =>
      p.users.some((u: { id: string; name: string }) => u.id === guest.id && u.name === 'Ola Renamed'),
    );
  });

  it('keeps their id and everything they wrote; guest becomes false; the answer is a session', async () => {
    const { facilitator, workshop, code } = await openWorkshop();
    const guest = await guestIn(code, 'Uma');
    const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    const idea = await t.request<{ id: string }>('POST', `/v1/workshops/${workshop.id}/cards`, {
      token: guest.token,
      body: { type: 'idea', title: 'Kept', parent: cluster.id },
    });
    await t.request('POST', `/v1/workshops/${workshop.id}/cards/${idea.body.id}/votes`, {
      token: guest.token,
      body: { value: 1 },
    });

    const email = `uma-${guest.id.slice(0, 8).toLowerCase()}@example.test`;
    const signup = await t.request<{ token: string; user: UserOutput }>('POST', '/v1/auth/signup', {
      token: guest.token,
      body: { email, password: 'correct horse battery', name: 'Uma Account' },
    });
    expect(signup.status).toBe(201);
    expect(signup.body.user).toMatchObject({
      id: guest.id,
      email,
      name: 'Uma Account',
      guest: false,
      confirmed_at: null,
    });
    const me = await t.request<UserOutput>('GET', '/v1/user/me', { token: signup.body.token });
    expect(me.body).toMatchObject({ id: guest.id, guest: false });
    // The account reaches what a guest could not, and still owns the card and its vote.
    expect((await t.request('GET', '/v1/user/me/workshops', { token: signup.body.token })).status).toBe(200);
    const card = await t.request<{ user_id: string }>('GET', `/v1/workshops/${workshop.id}/cards/${idea.body.id}`, {
      token: signup.body.token,
    });
    expect(card.body.user_id).toBe(guest.id);
    const { votes } = t.tables;
    expect(await t.db.select({ userId: votes.userId }).from(votes).where(eq(votes.cardId, idea.body.id))).toEqual([
      { userId: guest.id },
    ]);
    // Logging in with the new password finds the same user.
    const login = await t.request<{ user: UserOutput }>('POST', '/v1/auth/login', {
      body: { email, password: 'correct horse battery' },
    });
    expect(login.body.user.id).toBe(guest.id);
  });

  it('with a taken address answers 409 email_taken and stays a guest', async () => {
    const { code } = await openWorkshop();
    const guest = await guestIn(code);
    const taken = await createUser(t, 'Taken');
    expectError(
      await t.request('POST', '/v1/auth/signup', {
        token: guest.token,
        body: { email: taken.email, password: 'correct horse battery', name: 'Clash' },
      }),
      409,
      'email_taken',
    );
    expect((await t.request<UserOutput>('GET', '/v1/user/me', { token: guest.token })).body.guest).toBe(true);
  });

  it("without a guest's token makes a new account, as ever", async () => {
    const member = await createUser(t, 'Member');
    const res = await t.request<{ user: UserOutput }>('POST', '/v1/auth/signup', {
      token: member.token,
      body: {
        email: `fresh-${member.id.slice(0, 8).toLowerCase()}@example.test`,
        password: 'correct horse battery',
        name: 'Fresh',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.user.id).not.toBe(member.id);
    expect(res.body.user.guest).toBe(false);
  });
});

describe('a room behind one address', () => {
  const room = useServer({ plans: { free: { name: 'free', workshops_max_attendees: 1000 } } });

  it('lets 300 guests in within two minutes, one in ten typing a wrong code first', async () => {
    const facilitator = await createUser(room, 'Host');
    const workshop = await seedWorkshop(room, facilitator);
    const code = (
      await room.request<{ access_code: string }>('GET', `/v1/workshops/${workshop.id}/access_code`, {
        token: facilitator.token,
      })
    ).body.access_code;
    const wrong = code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    const started = Date.now();
    const statuses: number[] = [];
    // Thirty at a time, as people arrive; every tenth person mistypes first.
    for (let wave = 0; wave < 10; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const person = wave * 30 + i;
          if (person % 10 === 0) expectError(await joinAsGuest(room, wrong, `Guest ${person}`), 404, 'not_found');
          return (await joinAsGuest(room, code, `Guest ${person}`)).status;
        }),
      );
      statuses.push(...answers);
    }
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(statuses.filter((status) => status === 201)).toHaveLength(300);
    const roles = await room.request<UserRoleOutput[]>('GET', `/v1/workshops/${workshop.id}/user_roles`, {
      token: facilitator.token,
    });
    expect(roles.body.filter((role) => role.guest)).toHaveLength(300);
  }, 120_000);

  it('still limits wrong codes from one address, both joins in one budget: 60 a minute, the 61st is 429 even with the right code typed; the link still gets in', async () => {
    const guessing = await startTestServer();
    try {
      const facilitator = await createUser(guessing, 'Host');
      const workshop = await seedWorkshop(guessing, facilitator);
      const answers: number[] = [];
      // Members' joins (six users, within each one's 10) and guests' joins spend the same budget.
      const members = await Promise.all(Array.from({ length: 6 }, (_, i) => createUser(guessing, `Member ${i}`)));
      for (let i = 0; i < 30; i++) {
        answers.push(
          (
            await guessing.request('POST', '/v1/workshops/join', {
              token: members[i % 6]!.token,
              body: { access_code: '000-000-000' },
            })
          ).status,
        );
      }
      for (let i = 30; i < 61; i++) answers.push((await joinAsGuest(guessing, '000-000-000', 'Guesser')).status);
      expect(answers.slice(0, 60)).toEqual(Array(60).fill(404));
      expect(answers[60]).toBe(429);
      expectError(await joinAsGuest(guessing, workshop.accessCode, 'Right code'), 429, 'rate_limited');
      // Typed codes wait; the screen's link is not a guess and gets in.
      const key = await joinKeyOf(guessing, facilitator, workshop.id);
      expect((await joinWithKey(guessing, key, 'Scanned')).status).toBe(201);
    } finally {
      await guessing.close();
    }
  });

  it('cannot be locked out: after 1,000 wrong codes from one address, 300 guests get in through the link', async () => {
    const venue = await startTestServer({ plans: { free: { name: 'free', workshops_max_attendees: 1000 } } });
    try {
      const facilitator = await createUser(venue, 'Host');
      const workshop = await seedWorkshop(venue, facilitator);
      const key = await joinKeyOf(venue, facilitator, workshop.id);
      // One person flooding wrong codes spends the address's minute and day alike.
      const guesses = await inBatches(1_000, 25, (i) => joinAsGuest(venue, String(100_000_000 + i), 'Flooder'));
      expect(guesses.filter((res) => res.status === 404)).toHaveLength(60);
      expect(guesses.filter((res) => res.status === 429)).toHaveLength(940);
      expectError(await joinAsGuest(venue, workshop.accessCode, 'Typed'), 429, 'rate_limited');

      const joins = await inBatches(300, 25, (i) => joinWithKey(venue, key, `Guest ${i}`));
      expect(joins.map((res) => res.status)).toEqual(Array(300).fill(201));
      expect(new Set(joins.map((res) => res.body.user.id)).size).toBe(300);
      const roles = await venue.request<UserRoleOutput[]>('GET', `/v1/workshops/${workshop.id}/user_roles`, {
        token: facilitator.token,
      });
      expect(roles.body.filter((role) => role.guest)).toHaveLength(300);
      // A wrong key from that address is still a wrong code: refused with the same 404.
      expectError(await joinWithKey(venue, `${workshop.id}.${'A'.repeat(22)}`, 'Forger'), 404, 'not_found');
    } finally {
      await venue.close();
    }
  }, 120_000);
});
