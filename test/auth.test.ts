import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { InferOutput } from 'valibot';
import type { SessionOutput } from '../src/modules/auth/schemas';

type Session = InferOutput<typeof SessionOutput>;
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import { confirmationToken, createUser, expectError, errorOf, type TestUser } from './helpers/factories';
import { useServer, useSockets } from './helpers/cast';

const t = useServer();
const sockets = useSockets(t);

describe('auth', () => {
  it('signs up, reads me, logs out and in again', async () => {
    const res = await t.request<Session>('POST', '/v1/auth/signup', {
      body: { email: 'Ada@Example.test', password: 'long enough', name: 'Ada' },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: 'ada@example.test', name: 'Ada', confirmed_at: null, admin: false });
    expect(res.body.user.plan).toMatchObject({ name: 'free' });
    expect(res.body.user).not.toHaveProperty('password_hash');
    const token = res.body.token;

    const logout = await t.request('POST', '/v1/auth/logout', { token });
    expect(logout.status).toBe(204);
    expectError(await t.request('POST', '/v1/auth/logout', { token }), 401, 'unauthenticated');

    const login = await t.request<Session>('POST', '/v1/auth/login', {
      body: { email: 'ada@example.test', password: 'long enough' },
    });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(res.body.user.id);
    expect(login.body.token).not.toBe(token);
  });

  it('refuses a taken e-mail, a short password and bad credentials', async () => {
    const user = await createUser(t, 'Grace');
    expectError(
      await t.request('POST', '/v1/auth/signup', {
        body: { email: user.email.toUpperCase(), password: 'long enough', name: 'G' },
      }),
      409,
      'email_taken',
    );
    const short = await t.request('POST', '/v1/auth/signup', {
      body: { email: 'x@example.test', password: 'short', name: 'X' },
    });
    expectError(short, 400, 'invalid_request');
    expect(errorOf(short).details?.[0]?.path).toBe('password');
    expectError(
      await t.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'wrong password' } }),
      401,
      'invalid_credentials',
    );
    expectError(
      await t.request('POST', '/v1/auth/login', { body: { email: 'nobody@example.test', password: 'wrong password' } }),
      401,
      'invalid_credentials',
    );
  });

  it('confirms the e-mail with the mailed token, once', async () => {
    const user = await createUser(t, 'Linus');
    const [mail] = await t.rows<{ text: string }>(sql`select text from outbox where "to" = ${user.email}`);
    const token = /\/confirm\?token=(\S+)/.exec(mail!.text)![1];
    expect((await t.request('POST', '/v1/auth/confirm', { body: { token } })).status).toBe(204);
    expectError(await t.request('POST', '/v1/auth/confirm', { body: { token } }), 400, 'invalid_request');
  });

  it('answers malformed input with the contract shape', async () => {
    expectError(
      await t.request('POST', '/v1/auth/login', {
        rawBody: '{"email":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expectError(
      await t.request('POST', '/v1/auth/login', {
        rawBody: 'email=a',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await t.request('POST', '/v1/auth/login', { body: { email: 42, password: [] } }),
      400,
      'invalid_request',
    );
    const huge = JSON.stringify({ email: 'a@b.test', password: 'x'.repeat(1.1 * 1024 * 1024) });
    expectError(
      await t.request('POST', '/v1/auth/login', { rawBody: huge, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
  });

  it('requires a bearer token on /v1 routes', async () => {
    expectError(await t.request('GET', '/v1/user/me/workshops'), 401, 'unauthenticated');
    expectError(await t.request('GET', '/v1/user/me/workshops', { token: 'nonsense' }), 401, 'unauthenticated');
  });

  it('serves /health', async () => {
    const res = await t.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', mail: 'outbox' });
  });
});

describe('an address proven by its owner', () => {
  const PASSWORD = 'correct horse battery';
  const login = (email: string, password = PASSWORD) =>
    t.request<Session>('POST', '/v1/auth/login', { body: { email, password } });
  const confirm = (token: string, session?: string) =>
    t.request('POST', '/v1/auth/confirm', { token: session, body: { token } });
  const works = async (token: string) => (await t.request('GET', '/v1/user/me', { token })).status;

  /** A personal API token of the user, and whether it still reads a workshop of theirs (200) or not (401). */
  async function apiTokenOf(user: TestUser) {
    const made = await t.request<CreatedApiTokenOutput>('POST', '/v1/user/me/api_tokens', {
      token: user.token,
      body: { name: 'CI', scopes: ['workshops:read'] },
    });
    expect(made.status).toBe(201);
    const workshop = await t.request<{ id: string }>('POST', '/v1/workshops', {
      token: user.token,
      body: { title: 'Read by the token' },
    });
    const reads = async () =>
      (await t.request('GET', `/v1/workshops/${workshop.body.id}`, { token: made.body.token })).status;
    return { token: made.body.token, reads };
  }

  /** A new account's two confirmation links: the signup's, and a second one asked for before confirming. */
  async function withTwoLinks(name: string): Promise<{ user: TestUser; links: [string, string] }> {
    const user = await createUser(t, name);
    const first = await confirmationToken(t, user.email);
    expect((await t.request('POST', '/v1/user/me/confirmation', { token: user.token })).status).toBe(204);
    return { user, links: [first, await confirmationToken(t, user.email)] };
  }

  it('keeps the confirming session and its password, but signs out the other device, its live connection and the personal API token', async () => {
    const { user, links } = await withTwoLinks('Owner');
    const phone = (await login(user.email)).body.token;
    const phoneLive = await sockets.connected({ ...user, token: phone });
    const phoneEnded = new Promise<string>((resolve) => phoneLive.socket.once('disconnect', resolve));
    const laptopLive = await sockets.connected(user);

    expect((await confirm(links[0], user.token)).status).toBe(204);
    expect(await works(user.token)).toBe(200);
    expect(await works(phone)).toBe(401);
    expect(await phoneEnded).toBe('io server disconnect');
    expect(laptopLive.socket.connected).toBe(true);
    expect((await login(user.email)).status).toBe(200);

    // A later proof of the address (the second link) ends what was made since, the API token too.
    const apiToken = await apiTokenOf(user);
    expect(await apiToken.reads()).toBe(200);
    const tablet = (await login(user.email)).body.token;
    expect((await confirm(links[1], user.token)).status).toBe(204);
    expect(await apiToken.reads()).toBe(401);
    expect(await works(tablet)).toBe(401);
    expect(await works(user.token)).toBe(200);
    expect((await login(user.email)).status).toBe(200);
  });

  it("does not let a session of another account confirm the address, nor end that account's password", async () => {
    const owner = await createUser(t, 'Owner');
    const other = await createUser(t, 'Other');
    const link = await confirmationToken(t, owner.email);
    expectError(await confirm(link, other.token), 403, 'forbidden');
    expectError(await confirm(link, 'not a session'), 401, 'unauthenticated');
    expect(await works(owner.token)).toBe(200);
    expect((await login(owner.email)).status).toBe(200);
    // The link was not used up: its owner's own session confirms with it.
    expect((await confirm(link, owner.token)).status).toBe(204);
    expect(await works(other.token)).toBe(200);
  });

  it('refuses a link sent with an API token rather than a session', async () => {
    const { user, links } = await withTwoLinks('Integrator');
    expect((await confirm(links[0], user.token)).status).toBe(204);
    const apiToken = await apiTokenOf(user);
    expectError(await confirm(links[1], apiToken.token), 403, 'insufficient_scope');
    expect(await apiToken.reads()).toBe(200);
  });

  it('ends the password set before a confirmation sent without a session: a login with it gets 401', async () => {
    const user = await createUser(t, 'Signed out');
    expect((await confirm(await confirmationToken(t, user.email))).status).toBe(204);
    expect(await works(user.token)).toBe(401);
    expectError(await login(user.email), 401, 'invalid_credentials');
  });
});
