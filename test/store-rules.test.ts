import crypto, { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import pg from 'pg';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken, newToken } from '../src/modules/auth/crypto';
import { loadOrganizationAccess } from '../src/modules/organizations/access';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { UserOutput } from '../src/modules/users/schemas';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useServer, useUsers } from './helpers/cast';
import {
  confirmAddress,
  createUser,
  expectError,
  multipart,
  pngImage,
  seedMember,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import type { ApiResponse, TestServer } from './helpers/server';
import { testStore } from './helpers/store';

/*
 * The rules that hold by a lock (docs/operations.md#what-holds-the-rules-across-instances), with
 * several instances on one store writing at once. On PostgreSQL each race is forced: rows the
 * requests need after their checks are held from a connection of its own (as another instance's
 * transaction would hold them) until every request waits on a lock, so all of them have read before
 * any commits, which is the race the rule's lock must win. On SQLite (three servers on one file)
 * the file's single writer keeps them; the requests are only sent together.
 */

describe('rules with three instances on one store', () => {
  const a = useServer({
    plans: {
      free: { name: 'free', workshops_max_attendees: 3 },
      team: { name: 'team', workshops_max_attendees: 1000 },
    },
  });
  // One service behind one address, as deployed: a link one instance stored (an avatar's) is
  // recognised as the service's own by the others.
  const sibling = () => ({ plans: a.deps.config.plans, publicUrl: a.deps.config.publicUrl });
  const b = useServer(sibling, () => ({ shareDatabaseOf: a }));
  const c = useServer(sibling, () => ({ shareDatabaseOf: a }));
  const instances = () => [a, b, c];
  const [fay, flo, pat] = useUsers(a, 'Fay', 'Flo', 'Pat');
  // Added to organizations by address: their seats follow a confirmed address.
  beforeAll(async () => {
    for (const user of [flo, pat]) await confirmAddress(a, user.email, user.token);
  });

  /** Connections to this test's database waiting on a lock (a row, or another transaction's outcome). */
  async function waitingOnLocks(): Promise<number> {
    const [row] = await a.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return row!.n;
  }

  /**
   * On PostgreSQL, locks the rows of `table` whose `column` is one of `values` until `release`; `waitFor`
   * resolves once `n` requests wait on locks. PostgreSQL gives up a lock wait after a second (503),
   * so a test releases well within it. On SQLite nothing is held.
   */
  async function hold(table: string, column: string, values: string[]) {
    if (testStore !== 'postgres') return { waitFor: async () => {}, release: async () => {} };
    const other = new pg.Client({ connectionString: a.deps.config.databaseUrl });
    await other.connect();
    await other.query('BEGIN');
    // No rows named: no row may be added to the table (reads go on), as while another transaction
    // holds a lock on the whole table.
    if (values.length === 0) await other.query(`LOCK TABLE "${table}" IN SHARE MODE`);
    else await other.query(`SELECT 1 FROM "${table}" WHERE "${column}" = ANY($1) FOR UPDATE`, [values]);
    let released = false;
    return {
      async waitFor(n: number) {
        const deadline = Date.now() + 700;
        let waiting = await waitingOnLocks();
        while (waiting < n && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          waiting = await waitingOnLocks();
        }
        // Fewer would mean some request was not held up, and the race not run.
        expect(waiting, 'requests waiting on the held rows').toBe(n);
      },
      async release() {
        if (released) return;
        released = true;
        await other.query('ROLLBACK');
        await other.end();
      },
    };
  }

  /**
   * Sends `requests` at once, with the rows held (PostgreSQL; with no `values`, the table held
   * against new rows) until every request waits on a lock.
   */
  async function together<T>(
    held: { table: string; column: string; values: string[] },
    requests: Array<() => Promise<ApiResponse<T>>>,
  ) {
    const rows = await hold(held.table, held.column, held.values);
    try {
      const answers = Promise.all(requests.map((request) => request()));
      await rows.waitFor(requests.length);
      await rows.release();
      return await answers;
    } finally {
      await rows.release();
    }
  }

  const statuses = (answers: Array<ApiResponse<unknown>>) => answers.map((res) => res.status).sort((x, y) => x - y);
  const randomCode = () => String(100_000_000 + Math.floor(Math.random() * 899_999_999));

  async function newOrganization(admin: TestUser, name: string) {
    const res = await a.request<OrganizationOutput>('POST', '/v1/organizations', {
      token: admin.token,
      body: { name },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function addOrganizationMember(
    organizationId: string,
    admin: TestUser,
    email: string,
    role: 'admin' | 'facilitator',
  ) {
    const res = await a.request<OrganizationMemberOutput>('POST', `/v1/organizations/${organizationId}/members`, {
      token: admin.token,
      body: { email, role },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('answers the same signup sent to three instances at once 201 once and 409 email_taken otherwise', async () => {
    const organization = await newOrganization(fay, 'Signups');
    const { organizationMembers, users } = a.tables;
    for (let round = 0; round < 4; round++) {
      const email = `twice-${randomBytes(4).toString('hex')}@example.test`;
      const pending = await addOrganizationMember(organization.id, fay, email, 'facilitator');
      // The confirmation link a signup stores after the user's insert waits on the held table.
      const answers = await together(
        { table: 'one_time_tokens', column: 'id', values: [] },
        instances().map(
          (server) => () =>
            server.request('POST', '/v1/auth/signup', {
              body: { email, password: 'correct horse battery', name: 'Twice' },
            }),
        ),
      );
      expect(statuses(answers), `round ${round}`).toEqual([201, 409, 409]);
      for (const res of answers.filter((res) => res.status === 409)) expectError(res, 409, 'email_taken');
      const accounts = await a.db.select().from(users).where(eq(users.email, email));
      expect(accounts).toHaveLength(1);
      // Added by address before the account existed: the seat waits for the address to be confirmed.
      const [member] = await a.db.select().from(organizationMembers).where(eq(organizationMembers.id, pending.id));
      expect(member!.userId).toBeNull();
    }
  });

  it('links the seat of an address added on one instance while it is confirmed on another, whichever commits first', async () => {
    const organization = await newOrganization(fay, 'Confirmations');
    const { organizationMembers } = a.tables;
    for (let round = 0; round < 4; round++) {
      const email = `racing-${randomBytes(4).toString('hex')}@example.test`;
      const signup = await c.request<{ user: UserOutput }>('POST', '/v1/auth/signup', {
        body: { email, password: 'correct horse battery', name: 'Racing' },
      });
      expect(signup.status).toBe(201);
      const [mail] = await a.rows<{ text: string }>(sql`select text from outbox where "to" = ${email}`);
      const link = /\/confirm\?token=(\S+)/.exec(mail!.text)![1];
      // Both wait on the account's row: the confirmation before linking seats, the add before
      // reading whether the address is confirmed.
      const answers = await together({ table: 'users', column: 'id', values: [signup.body.user.id] }, [
        () =>
          a.request('POST', `/v1/organizations/${organization.id}/members`, {
            token: fay.token,
            body: { email, role: round % 2 ? 'admin' : 'facilitator' },
          }),
        () => b.request('POST', '/v1/auth/confirm', { body: { token: link } }),
      ]);
      expect(statuses(answers), `round ${round}`).toEqual([201, 204]);
      const [member] = await a.db
        .select()
        .from(organizationMembers)
        .where(and(eq(organizationMembers.organizationId, organization.id), eq(organizationMembers.email, email)));
      expect(member!.userId, `round ${round}`).toBe(signup.body.user.id);
    }
  });

  async function runningCodes(workshopIds: string[]) {
    const { workshops } = a.tables;
    const rows = await a.db
      .select()
      .from(workshops)
      .where(and(inArray(workshops.id, workshopIds), eq(workshops.state, 'running')));
    return rows.map((row) => row.accessCode);
  }

  it('reopens two archived workshops sharing a code at once through two instances, under two codes', async () => {
    for (let round = 0; round < 3; round++) {
      const code = randomCode();
      const archived = [
        await seedWorkshop(a, fay, { state: 'archived', accessCode: code }),
        await seedWorkshop(a, fay, { state: 'archived', accessCode: code }),
      ];
      // Each write logs an event by Fay: holding her row holds both after they set their workshop running.
      const answers = await together(
        { table: 'users', column: 'id', values: [fay.id] },
        archived.map(
          (workshop, i) => () =>
            instances()[i]!.request<WorkshopOutput>('PUT', `/v1/workshops/${workshop.id}`, {
              token: fay.token,
              body: { state: 'running' },
            }),
        ),
      );
      expect(statuses(answers), `round ${round}`).toEqual([200, 200]);
      const codes = await runningCodes(archived.map((workshop) => workshop.id));
      expect(codes).toHaveLength(2);
      expect(new Set(codes).size).toBe(2);
      expect(codes).toContain(code);
    }
  });

  it('draws a new workshop another code when a workshop being reopened on another instance takes the one drawn', async () => {
    const code = randomCode();
    const archived = await seedWorkshop(a, fay, { state: 'archived', accessCode: code });
    const held = await hold('users', 'id', [fay.id]);
    // Access codes are drawn with `crypto.randomInt` (src/modules/workshops/repo.ts): the one
    // drawn next lands on a code the test chose.
    const draw = vi.spyOn(crypto, 'randomInt');
    let answers: [ApiResponse<WorkshopOutput>, ApiResponse<WorkshopOutput>];
    try {
      // The reopening sets the code first and waits (on PostgreSQL) for Fay's row to log its event...
      const reopened = a.request<WorkshopOutput>('PUT', `/v1/workshops/${archived.id}`, {
        token: fay.token,
        body: { state: 'running' },
      });
      await held.waitFor(1);
      // ...while Pat's new workshop draws that very code, not yet seen as taken.
      draw.mockImplementationOnce(() => Number(code));
      const created = b.request<WorkshopOutput>('POST', '/v1/workshops', {
        token: pat.token,
        body: { title: 'Drawn twice' },
      });
      await held.waitFor(2);
      await held.release();
      answers = await Promise.all([reopened, created]);
    } finally {
      await held.release();
    }
    expect(answers.map((res) => res.status)).toEqual([200, 201]);
    expect(draw).toHaveReturnedWith(Number(code));
    draw.mockRestore();
    const codes = await runningCodes([archived.id, answers[1].body.id]);
    expect(codes).toHaveLength(2);
    expect(new Set(codes).size).toBe(2);
    expect(codes).toContain(code);
  });

  /**
   * Round after round, two instances replace one avatar at once (`put`, by `uploader`), with the row
   * holding the avatar held: one avatar file remains, the one `currentUrl` names, and no object or
   * row of a replaced one is left behind.
   */
  async function raceAvatarReplacements(input: {
    uploader: TestUser;
    held: { table: string; column: string; values: string[] };
    put: (server: TestServer, form: FormData) => Promise<ApiResponse<unknown>>;
    status: number;
    currentUrl: () => Promise<string | null>;
  }) {
    const { files } = a.tables;
    const images = [await pngImage(40, 40, '#aa3333'), await pngImage(40, 40, '#33aa33')];
    for (let round = 0; round < 3; round++) {
      const answers = await together(
        input.held,
        images.map(
          (image, i) => () =>
            input.put(instances()[i]!, multipart('avatar', image, { name: 'avatar.png', type: 'image/png' })),
        ),
      );
      expect(statuses(answers), `round ${round}`).toEqual([input.status, input.status]);
      const kept = await a.db
        .select()
        .from(files)
        .where(and(eq(files.userId, input.uploader.id), eq(files.container, 'avatars')));
      expect(kept, `round ${round}`).toHaveLength(1);
      expect(await input.currentUrl()).toContain(`/avatars/${kept[0]!.key}`);
    }
    const rows = await a.db.select().from(files).where(eq(files.container, 'avatars'));
    const objects = await a.deps.files.list('avatars/');
    expect(objects.map((object) => object.name).sort()).toEqual(rows.map((row) => `avatars/${row.key}`).sort());
  }

  it('keeps one avatar file when two instances replace a user’s avatar at once', async () => {
    const ada = await createUser(a, 'Ada');
    const { users } = a.tables;
    await raceAvatarReplacements({
      uploader: ada,
      held: { table: 'users', column: 'id', values: [ada.id] },
      put: (server, form) =>
        server.request<UserOutput>('PUT', '/v1/user/me/avatar', { token: ada.token, rawBody: form }),
      status: 200,
      currentUrl: async () => (await a.db.select().from(users).where(eq(users.id, ada.id)))[0]!.avatarUrl,
    });
  });

  it('keeps one avatar file when two instances replace an organization’s avatar at once', async () => {
    const olga = await createUser(a, 'Olga');
    const organization = await newOrganization(olga, 'Pictured');
    const { organizations } = a.tables;
    await raceAvatarReplacements({
      uploader: olga,
      held: { table: 'organizations', column: 'id', values: [organization.id] },
      put: (server, form) =>
        server.request('PUT', `/v1/organizations/${organization.id}/avatar`, { token: olga.token, rawBody: form }),
      status: 204,
      currentUrl: async () =>
        (await a.db.select().from(organizations).where(eq(organizations.id, organization.id)))[0]!.avatarUrl,
    });
  });

  it('keeps one facilitator when two facilitators demote each other at once through two instances', async () => {
    const { workshopMembers } = a.tables;
    for (let round = 0; round < 3; round++) {
      const workshop = await seedWorkshop(a, fay);
      await seedMember(a, workshop.id, flo, 'facilitator');
      const members = await a.db.select().from(workshopMembers).where(eq(workshopMembers.workshopId, workshop.id));
      const memberOf = (user: TestUser) => members.find((member) => member.userId === user.id)!.id;
      const demote = (server: TestServer, actor: TestUser, target: TestUser) => () =>
        server.request('PUT', `/v1/workshops/${workshop.id}/user_roles/${memberOf(target)}`, {
          token: actor.token,
          body: { role: 'participant' },
        });
      const answers = await together(
        { table: 'workshop_members', column: 'id', values: members.map((member) => member.id) },
        [demote(a, fay, flo), demote(b, flo, fay)],
      );
      // The second, once the first committed, is no facilitator any more.
      expect(statuses(answers), `round ${round}`).toEqual([200, 403]);
      const roles = await a.db.select().from(workshopMembers).where(eq(workshopMembers.workshopId, workshop.id));
      expect(roles.filter((member) => member.role === 'facilitator')).toHaveLength(1);
    }
  });

  it('admits exactly 3 of 6 joins sent at once through three instances against a plan of 3 participants', async () => {
    const { workshopMembers } = a.tables;
    for (let round = 0; round < 2; round++) {
      const code = randomCode();
      const workshop = await seedWorkshop(a, fay, { accessCode: code });
      const joiners: TestUser[] = [];
      for (let i = 0; i < 6; i++) joiners.push(await createUser(a, `Joiner ${i}`));
      // Each join writes a member row naming its user: held by the users' rows.
      const answers = await together(
        { table: 'users', column: 'id', values: joiners.map((user) => user.id) },
        joiners.map(
          (user, i) => () =>
            instances()[i % 3]!.request('POST', '/v1/workshops/join', {
              token: user.token,
              body: { access_code: code },
            }),
        ),
      );
      expect(statuses(answers), `round ${round}`).toEqual([200, 200, 200, 409, 409, 409]);
      for (const res of answers.filter((res) => res.status === 409)) expectError(res, 409, 'attendee_limit_reached');
      const participants = await a.db
        .select()
        .from(workshopMembers)
        .where(and(eq(workshopMembers.workshopId, workshop.id), eq(workshopMembers.role, 'participant')));
      expect(participants).toHaveLength(3);
    }
  });

  it('admits exactly 3 of 6 guests joining at once through three instances against a plan of 3 participants', async () => {
    const { users, workshopMembers } = a.tables;
    const code = randomCode();
    const workshop = await seedWorkshop(a, fay, { accessCode: code });
    // Guests are new users: nothing of theirs can be held. The count and the seat are taken under
    // the workshop's row lock (`writeWorkshop`); held, every join waits on it before counting.
    const answers = await together(
      { table: 'workshops', column: 'id', values: [workshop.id] },
      Array.from(
        { length: 6 },
        (_, i) => () =>
          instances()[i % 3]!.request('POST', '/v1/workshops/join/guest', {
            body: { access_code: code, name: `Guest ${i}` },
          }),
      ),
    );
    expect(statuses(answers)).toEqual([201, 201, 201, 409, 409, 409]);
    const seats = await a.db
      .select({ guest: users.guest })
      .from(workshopMembers)
      .innerJoin(users, eq(users.id, workshopMembers.userId))
      .where(and(eq(workshopMembers.workshopId, workshop.id), eq(workshopMembers.role, 'participant')));
    expect(seats).toEqual([{ guest: true }, { guest: true }, { guest: true }]);
    // A refused join made no guest: its insert rolled back with the seat.
    expect(
      await a.db
        .select({ id: users.id })
        .from(users)
        .where(
          and(
            eq(users.guest, true),
            inArray(users.name, ['Guest 0', 'Guest 1', 'Guest 2', 'Guest 3', 'Guest 4', 'Guest 5']),
          ),
        ),
    ).toHaveLength(3);
  });

  it("turns a guest into one account when two signups with the guest's token arrive at once through two instances", async () => {
    const code = randomCode();
    await seedWorkshop(a, fay, { accessCode: code });
    const joined = await a.request<{ token: string; user: UserOutput }>('POST', '/v1/workshops/join/guest', {
      body: { access_code: code, name: 'Twice' },
    });
    expect(joined.status).toBe(201);
    const guestId = joined.body.user.id;
    // Both read the guest and find the addresses free, then wait on the guest's row: the second
    // update finds it no longer a guest and changes nothing.
    const answers = await together(
      { table: 'users', column: 'id', values: [guestId] },
      [a, b].map(
        (server, i) => () =>
          server.request<{ user: UserOutput }>('POST', '/v1/auth/signup', {
            token: joined.body.token,
            body: {
              email: `upgrade-${i}-${randomBytes(4).toString('hex')}@example.test`,
              password: 'correct horse battery',
              name: `Account ${i}`,
            },
          }),
      ),
    );
    expect(statuses(answers)).toEqual([201, 409]);
    expectError(
      answers.find((res) => res.status === 409)!,
      409,
      'conflict',
    );
    const upgraded = answers.find((res) => res.status === 201)!.body as { user: UserOutput };
    expect(upgraded.user).toMatchObject({ id: guestId, guest: false });
    const { users } = a.tables;
    const [row] = await a.db
      .select({ email: users.email, guest: users.guest })
      .from(users)
      .where(eq(users.id, guestId));
    expect(row).toEqual({ email: upgraded.user.email, guest: false });
  });

  it('lets one invitation be accepted once when three people accept it at once through three instances', async () => {
    const { invitations, workshopMembers } = a.tables;
    for (let round = 0; round < 3; round++) {
      const workshop = await seedWorkshop(a, fay);
      const token = newToken();
      const invitation = await a.write(async (tx) => {
        const [row] = await tx
          .insert(invitations)
          .values({
            workshopId: workshop.id,
            email: `guest-${round}@example.test`,
            tokenHash: hashToken(token),
            content: 'Come',
            invitedBy: fay.id,
          })
          .returning();
        return row!;
      });
      const guests: TestUser[] = [];
      for (let i = 0; i < 3; i++) guests.push(await createUser(a, `Guest ${i}`));
      const answers = await together(
        { table: 'invitations', column: 'id', values: [invitation.id] },
        guests.map(
          (guest, i) => () =>
            instances()[i]!.request('POST', `/v1/invitations/${token}/accept`, { token: guest.token }),
        ),
      );
      expect(statuses(answers), `round ${round}`).toEqual([200, 409, 409]);
      for (const res of answers.filter((res) => res.status === 409)) expectError(res, 409, 'invitation_used');
      const accepter = guests[answers.findIndex((res) => res.status === 200)]!;
      const [after] = await a.db.select().from(invitations).where(eq(invitations.id, invitation.id));
      expect(after).toMatchObject({ state: 'accepted', acceptedBy: accepter.id });
      const participants = await a.db
        .select()
        .from(workshopMembers)
        .where(and(eq(workshopMembers.workshopId, workshop.id), eq(workshopMembers.role, 'participant')));
      expect(participants.map((member) => member.userId)).toEqual([accepter.id]);
    }
  });

  it('keeps one admin when two organization admins remove each other at once through two instances', async () => {
    const { organizationMembers } = a.tables;
    for (let round = 0; round < 3; round++) {
      const organization = await newOrganization(fay, `Pair ${round}`);
      const floMember = await addOrganizationMember(organization.id, fay, flo.email, 'admin');
      expect(floMember.pending).toBe(false);
      const [fayMember] = await a.db
        .select()
        .from(organizationMembers)
        .where(and(eq(organizationMembers.organizationId, organization.id), eq(organizationMembers.userId, fay.id)));
      const remove = (server: TestServer, actor: TestUser, memberId: string) => () =>
        server.request('DELETE', `/v1/organizations/${organization.id}/members/${memberId}`, { token: actor.token });
      const answers = await together(
        { table: 'organization_members', column: 'id', values: [fayMember!.id, floMember.id] },
        [remove(a, fay, floMember.id), remove(b, flo, fayMember!.id)],
      );
      // The second, once the first committed, is no member any more.
      expect(statuses(answers), `round ${round}`).toEqual([204, 404]);
      const admins = await a.db
        .select()
        .from(organizationMembers)
        .where(and(eq(organizationMembers.organizationId, organization.id), eq(organizationMembers.role, 'admin')));
      expect(admins).toHaveLength(1);
    }
  });

  it('creates no workshop for a member removed at the same moment through another instance', async () => {
    const { organizationMembers, workshops } = a.tables;
    for (let round = 0; round < 3; round++) {
      const organization = await newOrganization(fay, `Leaving ${round}`);
      const patMember = await addOrganizationMember(organization.id, fay, pat.email, 'facilitator');
      expect(patMember.pending).toBe(false);
      // Both writes lock the organization's row first: held, each waits, and they go one after the other.
      const answers = await together({ table: 'organizations', column: 'id', values: [organization.id] }, [
        () => a.request('DELETE', `/v1/organizations/${organization.id}/members/${patMember.id}`, { token: fay.token }),
        () =>
          b.request<WorkshopOutput>('POST', `/v1/organizations/${organization.id}/workshops`, {
            token: pat.token,
            body: { title: 'After leaving?' },
          }),
      ]);
      const [removed, created] = answers;
      expect(removed!.status, `round ${round}`).toBe(204);
      const made = await a.db
        .select()
        .from(workshops)
        .where(and(eq(workshops.ownerId, organization.id), eq(workshops.title, 'After leaving?')));
      // Either the workshop came first (made while Pat was a member) or the removal did (404, nothing made).
      if (created!.status === 404) expect(made).toEqual([]);
      else expect([created!.status, made.length]).toEqual([201, 1]);
      expect(await a.db.select().from(organizationMembers).where(eq(organizationMembers.id, patMember.id))).toEqual([]);
    }
  });

  it('reads an organization’s access inside a read-only snapshot', async () => {
    const organization = await newOrganization(fay, 'Read only');
    const access = await a.deps.database.snapshot((db) => loadOrganizationAccess(db, organization.id, fay));
    expect(access.organization.id).toBe(organization.id);
    expect(access.membership.role).toBe('admin');
  });
});
