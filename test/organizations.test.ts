import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { UserOutput } from '../src/modules/users/schemas';
import {
  confirmAddress,
  createConfirmedUser,
  createUser,
  expectError,
  multipart,
  pngImage,
  type TestUser,
  errorOf,
} from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer } from './helpers/cast';

const t = useServer();

async function createOrg(owner: TestUser, name = 'Acme') {
  const res = await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: owner.token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; name: string; avatar_url: string | null; plan: { name: string } };
}

async function addMember(orgId: string, admin: TestUser, email: string, role: 'facilitator' | 'admin' = 'facilitator') {
  const res = await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${orgId}/members`, {
    token: admin.token,
    body: { email, role },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; email: string; name: string; role: string; pending: boolean };
}

/** An organization with an admin, a facilitator member (a confirmed address) and a stranger. */
async function scene() {
  const admin = await createUser(t, 'Admin');
  const facilitator = await createConfirmedUser(t, 'Fran');
  const stranger = await createUser(t, 'Stranger');
  const org = await createOrg(admin);
  const member = await addMember(org.id, admin, facilitator.email);
  return { admin, facilitator, stranger, org, member };
}

async function orgRow(id: string) {
  const { organizations } = t.tables;
  const [row] = await t.db.select().from(organizations).where(eq(organizations.id, id));
  return row!;
}

function memberRows(orgId: string) {
  const { organizationMembers } = t.tables;
  return t.db
    .select()
    .from(organizationMembers)
    .where(eq(organizationMembers.organizationId, orgId))
    .orderBy(sql`rowid`);
}

function mailsTo(email: string) {
  const { outbox } = t.tables;
  return t.db
    .select()
    .from(outbox)
    .where(eq(outbox.to, email))
    .orderBy(sql`rowid`);
}

describe('organizations', () => {
  it('creates an organization whose creator is its admin, on the team plan', async () => {
    const ada = await createUser(t, 'Ada');
    const res = await t.request<OrganizationOutput>('POST', '/v1/organizations', {
      token: ada.token,
      body: { name: '  Analytical Engines ', extra: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Analytical Engines',
      avatar_url: null,
      plan: { name: 'team', workshops_max_attendees: 1000 },
      sso_required: false,
    });
    expect(await memberRows(res.body.id)).toMatchObject([{ userId: ada.id, email: ada.email, role: 'admin' }]);

    expect(
      (await t.request<OrganizationOutput>('GET', `/v1/organizations/${res.body.id}`, { token: ada.token })).body,
    ).toEqual(res.body);
  });

  it('refuses a bad name and creates nothing', async () => {
    const ada = await createUser(t, 'Ada');
    for (const body of [{}, { name: '' }, { name: '  ' }, { name: 7 }, { name: 'x'.repeat(201) }]) {
      const res = await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: ada.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('name');
    }
    await expectRawBodyRefused(
      t,
      { path: '/v1/organizations', token: ada.token },
      { body: 'name=x', contentType: 'application/x-www-form-urlencoded' },
    );
    expectError(
      await t.request<OrganizationOutput>('POST', '/v1/organizations', { body: { name: 'x' } }),
      401,
      'unauthenticated',
    );
    expect(
      (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token: ada.token })).body,
    ).toEqual([]);
  });

  it('lists the organizations the caller is a member of, by name', async () => {
    const { admin, facilitator, stranger, org } = await scene();
    const other = await createOrg(admin, 'aardvark');
    await createOrg(stranger, 'Not yours');
    const mine = await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token: admin.token });
    expect(mine.status).toBe(200);
    expect(mine.body.map((o: { id: string }) => o.id)).toEqual([other.id, org.id]);
    expect(
      (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token: facilitator.token })).body,
    ).toEqual([org]);
  });

  it('shows an organization to its members only', async () => {
    const { facilitator, stranger, org } = await scene();
    expect(
      (await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: facilitator.token })).body,
    ).toEqual(org);
    expectError(
      await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', '/v1/organizations/nope', { token: stranger.token }), 404, 'not_found');
  });

  it('lets admins rename it; facilitators get 403, strangers 404, bad names 400', async () => {
    const { admin, facilitator, stranger, org } = await scene();
    const res = await t.request<OrganizationOutput>('PUT', `/v1/organizations/${org.id}`, {
      token: admin.token,
      body: { name: 'Acme Corp' },
    });
    expect(res.status).toBe(204);
    expect(
      (await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: facilitator.token })).body
        .name,
    ).toBe('Acme Corp');

    expectError(
      await t.request<OrganizationOutput>('PUT', `/v1/organizations/${org.id}`, {
        token: facilitator.token,
        body: { name: 'Mine now' },
      }),
      403,
      'forbidden',
    );
    expectError(
      await t.request<OrganizationOutput>('PUT', `/v1/organizations/${org.id}`, {
        token: stranger.token,
        body: { name: 'Mine now' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request<OrganizationOutput>('PUT', `/v1/organizations/${org.id}`, {
        token: admin.token,
        body: { name: '' },
      }),
      400,
      'invalid_request',
    );
    expectError(
      await t.request('PUT', '/v1/organizations/nope', { token: admin.token, body: { name: 'x' } }),
      404,
      'not_found',
    );
    expect((await orgRow(org.id)).name).toBe('Acme Corp');
  });

  it('lets admins set and remove the avatar', async () => {
    const { admin, facilitator, stranger, org } = await scene();
    const set = await t.request('PUT', `/v1/organizations/${org.id}/avatar`, {
      token: admin.token,
      rawBody: multipart('avatar', await pngImage(600, 600), { type: 'image/png' }),
    });
    expect(set.status).toBe(204);
    const { avatar_url } = (
      await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: facilitator.token })
    ).body;
    expect(avatar_url).toMatch(new RegExp(`^${t.url}/files/avatars/`));
    const image = await fetch(avatar_url!);
    expect(await sharp(Buffer.from(await image.arrayBuffer())).metadata()).toMatchObject({ width: 512, height: 512 });

    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}/avatar`, {
        token: facilitator.token,
        rawBody: multipart('avatar', await pngImage(5, 5)),
      }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}/avatar`, { token: facilitator.token }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}/avatar`, {
        token: stranger.token,
        rawBody: multipart('avatar', await pngImage(5, 5)),
      }),
      404,
      'not_found',
    );
    const bad = await t.request('PUT', `/v1/organizations/${org.id}/avatar`, {
      token: admin.token,
      rawBody: multipart('avatar', 'text', { type: 'image/png' }),
    });
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('avatar');
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}/avatar`, { token: admin.token, body: { avatar: null } }),
      415,
      'unsupported_media_type',
    );
    expect((await orgRow(org.id)).avatarUrl).toBe(avatar_url);

    expect(
      (await t.request('PUT', `/v1/organizations/${org.id}/avatar`, { token: admin.token, rawBody: new FormData() }))
        .status,
    ).toBe(204);
    expect((await orgRow(org.id)).avatarUrl).toBeNull();
    expect((await fetch(avatar_url!)).status).toBe(404);
  });
});

describe('organization members', () => {
  it('lists members for any member, with role and pending addresses', async () => {
    const { admin, facilitator, stranger, org, member } = await scene();
    expect(member).toEqual({
      id: expect.any(String),
      email: facilitator.email,
      name: 'Fran',
      avatar_url: null,
      role: 'facilitator',
      pending: false,
    });
    const pending = await addMember(org.id, admin, 'New.Person@Example.test', 'admin');
    expect(pending).toEqual({
      id: expect.any(String),
      email: 'new.person@example.test',
      name: 'new.person',
      avatar_url: null,
      role: 'admin',
      pending: true,
    });

    const res = await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, {
      token: facilitator.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: expect.any(String), email: admin.email, name: 'Admin', avatar_url: null, role: 'admin', pending: false },
      member,
      pending,
    ]);
    expectError(
      await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, {
        token: stranger.token,
      }),
      404,
      'not_found',
    );
  });

  it('adds an account with a confirmed address at once and tells them by mail', async () => {
    const { admin, org } = await scene();
    const grace = await createConfirmedUser(t, 'Grace');
    await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: grace.token,
      rawBody: multipart('avatar', await pngImage(10, 10), { type: 'image/png' }),
    });
    const added = await addMember(org.id, admin, grace.email.toUpperCase(), 'admin');
    expect(added).toMatchObject({
      email: grace.email,
      name: 'Grace',
      role: 'admin',
      pending: false,
      avatar_url: expect.stringContaining('/files/avatars/'),
    });
    expect((await mailsTo(grace.email)).some((m) => m.subject.includes('Acme'))).toBe(true);
    expect(
      (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token: grace.token })).body.map(
        (o: { id: string }) => o.id,
      ),
    ).toEqual([org.id]);
  });

  it('invites an address without an account and links it once that person signed up and confirmed it', async () => {
    const { admin, org } = await scene();
    const email = `later-${Date.now()}+tag@example.test`;
    const pending = await addMember(org.id, admin, email);
    expect(pending.pending).toBe(true);
    expect((await memberRows(org.id)).find((m) => m.email === email)!.userId).toBeNull();
    const [mail] = await mailsTo(email);
    expect(mail!.text).toContain(`${t.url}/signup?email=${encodeURIComponent(email).replace('%40', '@')}`);
    expect(mail!.subject).toContain('Acme');
    expect(mail!.text).toContain('confirm the address');

    const signup = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      body: { email, password: 'long enough', name: 'Later' },
    });
    expect(signup.status).toBe(201);
    const token = signup.body.token;
    // Anyone may sign up with any address: the seat waits until the address is confirmed.
    expect((await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token })).body).toEqual([]);
    expectError(await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token }), 404, 'not_found');
    expect((await memberRows(org.id)).find((m) => m.email === email)!.userId).toBeNull();

    await confirmAddress(t, email, token);
    expect(
      (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token })).body.map(
        (o: { id: string }) => o.id,
      ),
    ).toEqual([org.id]);
    expect((await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token })).status).toBe(200);
    const members = (
      await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, { token })
    ).body;
    expect(members.find((m: { id: string }) => m.id === pending.id)).toMatchObject({
      name: 'Later',
      pending: false,
      email,
    });
  });

  it('refuses duplicates, bad input and non-admins, and changes nothing', async () => {
    const { admin, facilitator, stranger, org } = await scene();
    const before = await memberRows(org.id);
    expectError(
      await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, {
        token: admin.token,
        body: { email: facilitator.email.toUpperCase(), role: 'admin' },
      }),
      409,
      'already_member',
    );
    expectError(
      await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, {
        token: admin.token,
        body: { email: admin.email, role: 'facilitator' },
      }),
      409,
      'already_member',
    );
    for (const [body, path] of [
      [{ email: 'x@example.test', role: 'owner' }, 'role'],
      [{ email: 'x@example.test' }, 'role'],
      [{ email: 'not an address', role: 'admin' }, 'email'],
      [{ role: 'admin' }, 'email'],
    ] as const) {
      const res = await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, {
        token: admin.token,
        body,
      });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe(path);
    }
    expectError(
      await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, {
        token: facilitator.token,
        body: { email: 'x@example.test', role: 'facilitator' },
      }),
      403,
      'forbidden',
    );
    expectError(
      await t.request<OrganizationMemberOutput>('POST', `/v1/organizations/${org.id}/members`, {
        token: stranger.token,
        body: { email: 'x@example.test', role: 'facilitator' },
      }),
      404,
      'not_found',
    );
    expect(await memberRows(org.id)).toEqual(before);
    expect(await mailsTo('x@example.test')).toHaveLength(0);
  });

  it('lets admins remove members, members leave, and keeps the last admin', async () => {
    const { admin, facilitator, stranger, org, member } = await scene();
    const other = await createConfirmedUser(t, 'Other');
    const otherMember = await addMember(org.id, admin, other.email);
    const adminMember = (await memberRows(org.id)).find((m) => m.userId === admin.id)!;

    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/${otherMember.id}`, { token: facilitator.token }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/${otherMember.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/nope`, { token: admin.token }),
      404,
      'not_found',
    );
    const elsewhere = await createOrg(stranger, 'Elsewhere');
    const strangerMember = (await memberRows(elsewhere.id))[0]!;
    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/${strangerMember.id}`, { token: admin.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/${adminMember.id}`, { token: admin.token }),
      409,
      'conflict',
    );
    expect(await memberRows(org.id)).toHaveLength(3);
    expect(await memberRows(elsewhere.id)).toHaveLength(1);

    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/members/${otherMember.id}`, { token: admin.token }))
        .status,
    ).toBe(204);
    expectError(
      await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: other.token }),
      404,
      'not_found',
    );
    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/members/${member.id}`, { token: facilitator.token }))
        .status,
    ).toBe(204);
    expect(
      (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token: facilitator.token })).body,
    ).toEqual([]);

    // A pending admin does not count: nobody could act for the organization.
    const pendingAdmin = await addMember(org.id, admin, 'pending-admin@example.test', 'admin');
    expectError(
      await t.request('DELETE', `/v1/organizations/${org.id}/members/${adminMember.id}`, { token: admin.token }),
      409,
      'conflict',
    );
    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/members/${pendingAdmin.id}`, { token: admin.token }))
        .status,
    ).toBe(204);

    // With a second admin, the first may go.
    const second = await createConfirmedUser(t, 'Second');
    await addMember(org.id, admin, second.email, 'admin');
    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/members/${adminMember.id}`, { token: admin.token }))
        .status,
    ).toBe(204);
    expect(
      (
        await t.request<OrganizationMemberOutput[]>('GET', `/v1/organizations/${org.id}/members`, {
          token: second.token,
        })
      ).body.map((m: { name: string }) => m.name),
    ).toEqual(['Second']);
  });

  it("lets admins change members' roles, keeps the last admin, and turns away everyone else", async () => {
    const { admin, facilitator, stranger, org, member } = await scene();
    const adminMember = (await memberRows(org.id)).find((m) => m.userId === admin.id)!;
    const put = (memberId: string, token: string, body: unknown) =>
      t.request<OrganizationMemberOutput>('PUT', `/v1/organizations/${org.id}/members/${memberId}`, { token, body });

    expectError(await put(member.id, facilitator.token, { role: 'admin' }), 403, 'forbidden');
    expectError(await put(member.id, stranger.token, { role: 'admin' }), 404, 'not_found');
    expectError(await put('nope', admin.token, { role: 'admin' }), 404, 'not_found');
    expectError(await put(member.id, admin.token, { role: 'owner' }), 400, 'invalid_request');
    expectError(await put(adminMember.id, admin.token, { role: 'facilitator' }), 409, 'conflict');
    expect((await memberRows(org.id)).map((m) => m.role)).toEqual(['admin', 'facilitator']);

    const promoted = await put(member.id, admin.token, { role: 'admin' });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body).toMatchObject({ id: member.id, email: facilitator.email, role: 'admin', pending: false });
    // Now an admin, Fran manages the organization: she makes its tokens.
    const made = await t.request('POST', `/v1/organizations/${org.id}/api_tokens`, {
      token: facilitator.token,
      body: { name: 'hers', scopes: ['members:read'] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    // With a second admin, the first may step down to facilitator.
    const stepped = await put(adminMember.id, admin.token, { role: 'facilitator' });
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    expect(stepped.body.role).toBe('facilitator');
    expectError(await put(member.id, admin.token, { role: 'facilitator' }), 403, 'forbidden');
    expect((await memberRows(org.id)).map((m) => m.role)).toEqual(['facilitator', 'admin']);
  });
});
