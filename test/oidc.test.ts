import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { OidcStatusOutput } from '../src/modules/oidc/schemas';
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import { hashToken } from '../src/modules/auth/crypto';
import { useServer } from './helpers/cast';
import {
  confirmAddress,
  confirmationToken,
  createConfirmedUser,
  createUser,
  errorOf,
  expectError,
  type TestUser,
} from './helpers/factories';
import { useProvider } from './helpers/oidc-provider';
import { rawSync, syncedDoc } from './helpers/collab';
import { Jar, providerBrowser } from './helpers/provider-sign-in';
import { connectSocket } from './helpers/sockets';

/*
 * Signing in through an OpenID provider (docs/integrations.md#single-sign-on), against a real one
 * in this process: the redirect's PKCE, state and nonce, the callback's checks, which account a
 * sign-in finds, links or makes, and organizations that refuse password sessions (`sso_required`).
 */

const op = useProvider();
const t = useServer(() => ({
  oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: 'Acme ID' },
}));
beforeAll(() => op.register(`${t.url}/v1/auth/oidc/callback`));

const { visit, start, atProvider, callback, signIn } = providerBrowser(t, op);

const uniqueLogin = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

async function me(token: string) {
  const res = await t.request<{ id: string; email: string; name: string; confirmed_at: string | null }>(
    'GET',
    '/v1/user/me',
    { token },
  );
  return { ...res, body: { ...res.body, confirmed: res.body.confirmed_at !== null } };
}

describe('starting a sign-in', () => {
  it('tells the console the provider is there, and its name', async () => {
    const res = await t.request<OidcStatusOutput>('GET', '/v1/auth/oidc');
    expect(res.body).toEqual({ enabled: true, name: 'Acme ID' });
  });

  it('sends the browser to the provider with PKCE (S256), state and nonce, tied to it by a cookie', async () => {
    const app = new Jar();
    const url = await start(app);
    expect(url.origin).toBe(op.issuer);
    const params = url.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(op.clientId);
    expect(params.get('redirect_uri')).toBe(`${t.url}/v1/auth/oidc/callback`);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(params.get('scope')).toContain('openid');
    expect(app.header()).toContain(`oidc_state=${params.get('state')}`);
    // Only a hash of the state is kept; the verifier never leaves the server.
    const rows = await t.rows<{ state_hash: string }>(sql`select state_hash from oidc_logins`);
    expect(rows.map((r) => r.state_hash)).not.toContain(params.get('state'));
    expect(url.href).not.toContain('code_verifier');
  });

  it('refuses a return_to that would send the person to another site once resolved or decoded', async () => {
    for (const returnTo of [
      '//evil.example',
      '//evil.example/x',
      '/..//evil.example',
      '/./..//evil.example',
      '/%2e%2e//evil.example',
      '/workshops/../..//evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/%5C%5Cevil.example',
      '/%2F%2Fevil.example',
      '/%2f/evil.example',
      'https://evil.example/',
      'http:/evil.example',
      'javascript:alert(1)',
      'workshops',
      ' /workshops',
      '/%0d%0a',
      '/x\r\nSet-Cookie: a=b',
      '/\t/evil.example',
      '/%00',
      '/%E0%A4%A',
    ]) {
      const res = await t.request('GET', `/v1/auth/oidc/start?return_to=${encodeURIComponent(returnTo)}`);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details, returnTo).toEqual([expect.objectContaining({ path: 'return_to' })]);
    }
  });

  it('keeps a return_to as the plain path it resolves to', async () => {
    const app = new Jar();
    for (const [sent, kept] of [
      ['/workshops/../workshops/abc', '/workshops/abc'],
      ['/./workshops/abc?tab=board#ignored', '/workshops/abc?tab=board'],
      ['/workshops/caf\u00e9', '/workshops/caf%C3%A9'],
    ] as const) {
      const state = (await start(app, sent)).searchParams.get('state')!;
      const [row] = await t.rows<{ return_to: string }>(
        sql`select return_to from oidc_logins where state_hash = ${hashToken(state)}`,
      );
      expect(row?.return_to, sent).toBe(kept);
    }
  });

  it("refuses a client_state that is not a tab's one-time value", async () => {
    for (const clientState of [
      'short',
      'x'.repeat(129),
      'has spaces in it, and more than 22',
      `${'a'.repeat(30)}<b>`,
    ]) {
      const query = new URLSearchParams({ client_state: clientState });
      const res = await t.request('GET', `/v1/auth/oidc/start?${query}`);
      expectError(res, 400, 'invalid_request');
    }
    const twice = await t.request(
      'GET',
      `/v1/auth/oidc/start?client_state=${'a'.repeat(22)}&client_state=${'b'.repeat(22)}`,
    );
    expectError(twice, 400, 'invalid_request');
  });
});

describe('the callback', () => {
  it('signs a first-time person in with a new account, confirmed when the provider verified the address', async () => {
    const login = uniqueLogin('new');
    const email = `${login}@example.test`;
    const fragment = await signIn(login, { email, email_verified: true, name: 'Nia New' });
    const token = fragment.get('token')!;
    expect(token).toBeTruthy();
    const account = await me(token);
    expect(account.body).toMatchObject({ email, name: 'Nia New', confirmed: true });
    // Signing in again finds the same account by (issuer, subject), even with another address.
    const again = await signIn(login, { email: `other-${email}`, email_verified: true, name: 'Nia' });
    expect((await me(again.get('token')!)).body.id).toBe(account.body.id);
    const identities = await t.rows<{ email: string }>(sql`select email from user_identities where subject = ${login}`);
    expect(identities).toEqual([{ email: `other-${email}` }]);
  });

  it("opens an account in the provider's locale and zone, else in the browser's language and UTC", async () => {
    const settingsOf = async (token: string) =>
      (await t.request<{ locale: string; time_zone: string }>('GET', '/v1/user/me', { token })).body;
    const lena = uniqueLogin('lena');
    const claimed = await signIn(lena, {
      email: `${lena}@example.test`,
      email_verified: true,
      locale: 'de_AT',
      zoneinfo: 'Europe/Vienna',
    });
    expect(await settingsOf(claimed.get('token')!)).toMatchObject({ locale: 'de', time_zone: 'Europe/Vienna' });

    // No locale the service speaks, nor a zone it knows: the callback's Accept-Language, and UTC.
    const omar = uniqueLogin('omar');
    op.accounts.set(omar, { email: `${omar}@example.test`, email_verified: true, locale: 'tr', zoneinfo: 'Mars/Base' });
    const jar = new Jar();
    const back = await atProvider(await start(jar), omar);
    const res = await visit(back.href, jar, { headers: { 'accept-language': 'ar-EG, en;q=0.5' } });
    const token = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1)).get('token')!;
    expect(await settingsOf(token)).toMatchObject({ locale: 'ar', time_zone: 'UTC' });
  });

  it('opens an unconfirmed account, and mails the confirmation, when the address is not verified', async () => {
    const login = uniqueLogin('unverified');
    const email = `${login}@example.test`;
    const fragment = await signIn(login, { email, email_verified: false });
    const account = await me(fragment.get('token')!);
    expect(account.body).toMatchObject({ email, name: login, confirmed: false });
    const mails = await t.rows(sql`select 1 from outbox where "to" = ${email}`);
    expect(mails).toHaveLength(1);
  });

  it('returns to the path the sign-in started from, and the token only in the fragment', async () => {
    const login = uniqueLogin('back');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true });
    const app = new Jar();
    const { location } = await callback(await atProvider(await start(app, '/workshops/xyz?tab=board'), login), app);
    expect(location.origin + location.pathname + location.search).toBe(`${t.url}/workshops/xyz?tab=board`);
    expect(location.search).not.toContain('token');
    expect(location.hash).toMatch(/^#token=/);
  });

  it("hands the tab's one-time value back beside the token or the problem, and only to the browser that started", async () => {
    const login = uniqueLogin('tab');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true });
    const app = new Jar();
    const clientState = randomBytes(32).toString('base64url');
    const { fragment } = await callback(await atProvider(await start(app, '/', clientState), login), app);
    expect(fragment.get('token')).toBeTruthy();
    expect(fragment.get('client_state')).toBe(clientState);

    const cancelledState = randomBytes(32).toString('base64url');
    const cancelled = (await start(app, '/', cancelledState)).searchParams.get('state');
    const denied = new URL(`${t.url}/v1/auth/oidc/callback?error=access_denied&state=${cancelled}`);
    expect(Object.fromEntries((await callback(denied, app)).fragment)).toEqual({
      sign_in_error: 'denied',
      client_state: cancelledState,
    });

    // The end of a sign-in taken to another browser carries nothing of the tab that started it.
    const elsewhere = await atProvider(await start(app, '/', randomBytes(32).toString('base64url')), login);
    expect(Object.fromEntries((await callback(elsewhere, new Jar())).fragment)).toEqual({ sign_in_error: 'state' });

    // A start without one (an older console) gets none back.
    const without = await signIn(login, { email: `${login}@example.test`, email_verified: true });
    expect(without.get('token')).toBeTruthy();
    expect(without.has('client_state')).toBe(false);
  });

  it('links an existing account when the address is verified by the provider and confirmed here', async () => {
    const user = await createConfirmedUser(t, 'Lin');
    const login = uniqueLogin('lin');
    const fragment = await signIn(login, { email: user.email.toUpperCase(), email_verified: true });
    expect((await me(fragment.get('token')!)).body.id).toBe(user.id);
  });

  it('does not link when the provider did not verify the address, nor to an unconfirmed account', async () => {
    const confirmed = await createConfirmedUser(t, 'Vera');
    const unverified = await signIn(uniqueLogin('vera'), { email: confirmed.email, email_verified: false });
    expect(unverified.get('sign_in_error')).toBe('account_exists');
    expect(unverified.has('token')).toBe(false);

    const unconfirmed = await createUser(t, 'Uma');
    const refused = await signIn(uniqueLogin('uma'), { email: unconfirmed.email, email_verified: true });
    expect(refused.get('sign_in_error')).toBe('account_exists');
    // Nothing was linked: the next sign-in of either is refused the same way.
    const identities = await t.rows(
      sql`select 1 from user_identities where user_id in (${confirmed.id}, ${unconfirmed.id})`,
    );
    expect(identities).toHaveLength(0);
  });

  it('refuses a first sign-in without an address', async () => {
    const fragment = await signIn(uniqueLogin('nomail'), {});
    expect(fragment.get('sign_in_error')).toBe('no_email');
  });

  it('refuses a tampered state, a state used twice, and a sign-in started in another browser', async () => {
    const login = uniqueLogin('tamper');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true });
    const app = new Jar();
    const back = await atProvider(await start(app), login);

    const tampered = new URL(back);
    tampered.searchParams.set('state', `${back.searchParams.get('state')}x`);
    expect((await callback(tampered, app)).fragment.get('sign_in_error')).toBe('state');

    const elsewhere = await callback(back, new Jar());
    expect(elsewhere.fragment.get('sign_in_error')).toBe('state');
    // That attempt used the sign-in up: its own browser cannot finish it either.
    expect((await callback(back, app)).fragment.get('sign_in_error')).toBe('state');
  });

  it('refuses an expired sign-in, and tells the console when the person said no at the provider', async () => {
    const app = new Jar();
    const url = await start(app);
    await t.write(sql`update oidc_logins set expires_at = '2000-01-01T00:00:00.000Z'`);
    const expired = new URL(`${t.url}/v1/auth/oidc/callback?code=x&state=${url.searchParams.get('state')}`);
    expect((await callback(expired, app)).fragment.get('sign_in_error')).toBe('expired');

    const again = await start(app);
    const denied = new URL(
      `${t.url}/v1/auth/oidc/callback?error=access_denied&state=${again.searchParams.get('state')}`,
    );
    expect((await callback(denied, app)).fragment.get('sign_in_error')).toBe('denied');
  });
});

describe('an address proven by its owner', () => {
  it("leaves a provider sign-in that never verified someone's address no way into the account once its owner confirms it", async () => {
    const admin = await createConfirmedUser(t, 'Admin');
    const org = (
      await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
    ).body;
    const email = `owner-${randomBytes(4).toString('hex')}@example.test`;
    const seat = await t.request<{ pending: boolean }>('POST', `/v1/organizations/${org.id}/members`, {
      token: admin.token,
      body: { email, role: 'admin' },
    });
    expect(seat.body.pending).toBe(true);
    // Someone signs in with the address through a provider that did not check it: an account, unconfirmed.
    const login = uniqueLogin('impostor');
    const impostor = (await signIn(login, { email, email_verified: false })).get('token')!;
    const account = await me(impostor);
    expect(account.body).toMatchObject({ email, confirmed: false });

    // Its owner confirms from the mail, signed out.
    await confirmAddress(t, email);
    expectError(await t.request('GET', '/v1/user/me', { token: impostor }), 401, 'unauthenticated');
    const again = await signIn(login, { email, email_verified: false });
    expect(again.get('sign_in_error')).toBe('account_exists');
    expect(again.has('token')).toBe(false);
    const members = await t.rows<{ user_id: string }>(
      sql`select user_id from organization_members where organization_id = ${org.id} and email = ${email}`,
    );
    expect(members).toEqual([{ user_id: account.body.id }]);
  });

  it('keeps signing in through a verified provider identity linked after the address was proven, through a later proof', async () => {
    const owner = await createUser(t, 'Owner');
    const first = await confirmationToken(t, owner.email);
    expect((await t.request('POST', '/v1/user/me/confirmation', { token: owner.token })).status).toBe(204);
    const second = await confirmationToken(t, owner.email);
    const confirm = (token: string) => t.request('POST', '/v1/auth/confirm', { token: owner.token, body: { token } });
    expect((await confirm(first)).status).toBe(204);

    const login = uniqueLogin('owner');
    const linked = (await signIn(login, { email: owner.email, email_verified: true })).get('token')!;
    expect((await me(linked)).body.id).toBe(owner.id);
    expect((await confirm(second)).status).toBe(204);
    // That session was another way in, and ended; the identity itself stays linked: it signs in
    // by (issuer, subject), whatever address the provider gives now.
    expectError(await t.request('GET', '/v1/user/me', { token: linked }), 401, 'unauthenticated');
    const again = (await signIn(login, { email: `new-${owner.email}`, email_verified: false })).get('token');
    expect(again).toBeTruthy();
    expect((await me(again!)).body.id).toBe(owner.id);
  });

  it('keeps the provider sign-in of a person who confirms their address from the session it opened (a provider that does not say it verified addresses)', async () => {
    const login = uniqueLogin('entra');
    const email = `${login}@example.test`;
    const first = (await signIn(login, { email, email_verified: false })).get('token')!;
    const other = (await signIn(login, { email, email_verified: false })).get('token')!;
    // Confirmed from the mail, in the tab the provider's sign-in opened.
    await confirmAddress(t, email, first);
    expect((await me(first)).body.confirmed).toBe(true);
    // The other session was another way in, and ended; the identity the proof came by stays.
    expectError(await t.request('GET', '/v1/user/me', { token: other }), 401, 'unauthenticated');
    const again = (await signIn(login, { email, email_verified: false })).get('token');
    expect(again).toBeTruthy();
    expect((await me(again!)).body.email).toBe(email);
  });

  it('counts an account opened with a verified address as proven for the identity that opened it', async () => {
    const login = uniqueLogin('verified');
    const token = (await signIn(login, { email: `${login}@example.test`, email_verified: true })).get('token')!;
    expect((await me(token)).body.confirmed).toBe(true);
    const [identity] = await t.rows<{ address_proven: boolean | number }>(
      sql`select address_proven from user_identities where subject = ${login}`,
    );
    expect(Boolean(identity!.address_proven)).toBe(true);
  });
});

describe('sso_required', () => {
  async function organizationWith(admin: TestUser, member: TestUser) {
    const org = (
      await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
    ).body;
    expect(org.sso_required).toBe(false);
    const added = await t.request('POST', `/v1/organizations/${org.id}/members`, {
      token: admin.token,
      body: { email: member.email, role: 'facilitator' },
    });
    expect(added.status).toBe(201);
    const workshop = (
      await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
        token: admin.token,
        body: { title: 'Planning' },
      })
    ).body;
    return { org, workshop };
  }

  it("refuses members' password sessions on the organization and its workshops; provider sessions and API tokens pass", async () => {
    const admin = await createConfirmedUser(t, 'Ada');
    const member = await createConfirmedUser(t, 'Mo');
    const { org, workshop } = await organizationWith(admin, member);
    const ownWorkshop = (
      await t.request<WorkshopOutput>('POST', '/v1/workshops', { token: member.token, body: { title: 'Mine' } })
    ).body;
    const apiToken = (
      await t.request<CreatedApiTokenOutput>('POST', `/v1/organizations/${org.id}/api_tokens`, {
        token: admin.token,
        body: { name: 'CI', scopes: ['workshops:read'] },
      })
    ).body.token;
    const ssoMember = (await signIn(uniqueLogin('mo'), { email: member.email, email_verified: true })).get('token')!;
    const ssoAdmin = (await signIn(uniqueLogin('ada'), { email: admin.email, email_verified: true })).get('token')!;

    const on = await t.request('PUT', `/v1/organizations/${org.id}`, {
      token: admin.token,
      body: { sso_required: true },
    });
    expect(on.status).toBe(204);
    const read = await t.request<OrganizationOutput[]>('GET', `/v1/user/me/organizations`, { token: admin.token });
    expect(read.body[0]!.sso_required).toBe(true);

    for (const token of [member.token, admin.token]) {
      expectError(await t.request('GET', `/v1/organizations/${org.id}`, { token }), 403, 'sso_required');
      expectError(await t.request('GET', `/v1/organizations/${org.id}/members`, { token }), 403, 'sso_required');
      expectError(await t.request('GET', `/v1/workshops/${workshop.id}`, { token }), 403, 'sso_required');
      expectError(await t.request('GET', `/v1/workshops/${workshop.id}/cards`, { token }), 403, 'sso_required');
    }
    // The member's own workshop, and their account, are not the organization's.
    expect((await t.request('GET', `/v1/workshops/${ownWorkshop.id}`, { token: member.token })).status).toBe(200);
    expect((await t.request('GET', '/v1/user/me', { token: member.token })).status).toBe(200);
    // A member who is no admin cannot use the admins' way out.
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}`, { token: member.token, body: { name: 'Mine now' } }),
      403,
      'sso_required',
    );

    expect((await t.request('GET', `/v1/organizations/${org.id}/members`, { token: ssoMember })).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: ssoAdmin })).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: apiToken })).status).toBe(200);

    // An admin signed in with a password can always turn it off again.
    const off = await t.request('PUT', `/v1/organizations/${org.id}`, {
      token: admin.token,
      body: { sso_required: false },
    });
    expect(off.status).toBe(204);
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: admin.token })).status).toBe(200);
    const renamed = await t.request<OrganizationOutput>('GET', `/v1/organizations/${org.id}`, { token: member.token });
    expect(renamed.body).toMatchObject({ name: 'Acme', sso_required: false });
  });

  it('refuses live joins of password sessions too: Socket.IO and the Yjs endpoint', async () => {
    const admin = await createConfirmedUser(t, 'Liv');
    const { org, workshop } = await organizationWith(admin, await createConfirmedUser(t, 'Lou'));
    const ssoAdmin = (await signIn(uniqueLogin('liv'), { email: admin.email, email_verified: true })).get('token')!;
    const on = await t.request('PUT', `/v1/organizations/${org.id}`, {
      token: admin.token,
      body: { sso_required: true },
    });
    expect(on.status).toBe(204);

    const password = await connectSocket(t.url, admin.token);
    const provider = await connectSocket(t.url, ssoAdmin);
    try {
      expect(await password.join(workshop.id)).toMatchObject({ ok: false, error: { code: 'sso_required' } });
      expect(await provider.join(workshop.id)).toMatchObject({ ok: true });
    } finally {
      password.close();
      provider.close();
    }
    const refused = await rawSync(t, `/v1/sync/${workshop.id}?token=${encodeURIComponent(admin.token)}`);
    expect(refused).toMatchObject({ code: 4403, reason: 'sso_required', messages: [] });
    const synced = await syncedDoc(t, workshop.id, ssoAdmin);
    synced.destroy();
  });

  it('is set by admins only', async () => {
    const admin = await createConfirmedUser(t, 'Abe');
    const member = await createConfirmedUser(t, 'Max');
    const { org } = await organizationWith(admin, member);
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}`, { token: member.token, body: { sso_required: true } }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('PUT', `/v1/organizations/${org.id}`, { token: admin.token, body: { sso_required: 'yes' } }),
      400,
      'invalid_request',
    );
  });
});

describe('without a provider', () => {
  const plain = useServer();

  it('offers no single sign-on, and organizations cannot require it', async () => {
    expect((await plain.request<OidcStatusOutput>('GET', '/v1/auth/oidc')).body).toEqual({
      enabled: false,
      name: null,
    });
    expectError(await plain.request('GET', '/v1/auth/oidc/start'), 404, 'not_found');
    expectError(await plain.request('GET', '/v1/auth/oidc/callback?state=x&code=y'), 404, 'not_found');
    const admin = await createConfirmedUser(plain, 'Ann');
    const org = (
      await plain.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'A' } })
    ).body;
    expectError(
      await plain.request('PUT', `/v1/organizations/${org.id}`, { token: admin.token, body: { sso_required: true } }),
      409,
      'conflict',
    );
  });
});
