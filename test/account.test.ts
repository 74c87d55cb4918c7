import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { InferOutput } from 'valibot';
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import type { SessionListOutput, SessionOutput } from '../src/modules/auth/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { UserOutput } from '../src/modules/users/schemas';
import {
  confirmationToken,
  createConfirmedUser,
  createUser,
  errorOf,
  expectError,
  mailedToken,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { useServer, useSockets } from './helpers/cast';
import { testStore } from './helpers/store';

/*
 * An account's life (docs/api.md#an-accounts-life): resetting and changing the password, changing
 * the address, and the sessions a person has open. Links are read from the outbox, as mailed.
 */

type Session = InferOutput<typeof SessionOutput>;

const t = useServer();
/** A second instance on the same database. */
const other = useServer({}, () => ({ shareDatabaseOf: t }));
const sockets = useSockets(t);

const PASSWORD = 'correct horse battery';
const RESET = 'Reset your password';
const NEW_ADDRESS = 'Confirm your new e-mail address';
const ADDRESS_NOTICE = 'Your e-mail address is about to change';

const login = (email: string, password = PASSWORD, server = t) =>
  server.request<Session>('POST', '/v1/auth/login', { body: { email, password } });
const works = async (token: string) => (await t.request('GET', '/v1/user/me', { token })).status;
const me = async (token: string) => (await t.request<UserOutput>('GET', '/v1/user/me', { token })).body;
const askReset = (email: string, server = t) => server.request('POST', '/v1/auth/password_reset', { body: { email } });
const reset = (token: string, password = 'a brand new password') =>
  t.request<Session>('POST', '/v1/auth/password_reset/confirm', { body: { token, password } });
const mailsTo = async (email: string, server = t) =>
  (await server.rows<{ subject: string }>(sql`select subject from outbox where "to" = ${email}`)).map((m) => m.subject);
/** A 429 as the limits answer it: `rate_limited`, and a wait within the budget's 10 minutes. */
function expectLimited(res: { status: number; headers: Headers; body: unknown }) {
  expectError(res, 429, 'rate_limited');
  const wait = Number(res.headers.get('retry-after'));
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(600);
}

/** A personal API token of a confirmed user, and whether it still reads their account's workshop (200) or not. */
async function apiTokenOf(user: TestUser) {
  const made = await t.request<CreatedApiTokenOutput>('POST', '/v1/user/me/api_tokens', {
    token: user.token,
    body: { name: 'CI', scopes: ['workshops:read'] },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const workshop = await seedWorkshop(t, user);
  const reads = async () => (await t.request('GET', `/v1/workshops/${workshop.id}`, { token: made.body.token })).status;
  return { token: made.body.token, reads };
}

/** An organization of a confirmed admin with `email` added as a member: a seat waiting for that address. */
async function seatWaitingFor(email: string) {
  const admin = await createConfirmedUser(t, 'Admin');
  const org = await t.request<OrganizationOutput>('POST', '/v1/organizations', {
    token: admin.token,
    body: { name: 'Acme' },
  });
  const added = await t.request('POST', `/v1/organizations/${org.body.id}/members`, {
    token: admin.token,
    body: { email, role: 'facilitator' },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const seatOf = async (token: string) =>
    (await t.request<OrganizationOutput[]>('GET', '/v1/user/me/organizations', { token })).body.map((o) => o.id);
  return { orgId: org.body.id, seatOf };
}

async function guest(): Promise<string> {
  const host = await createUser(t, 'Host');
  const workshop = await seedWorkshop(t, host);
  const joined = await t.request<{ token: string }>('POST', '/v1/workshops/join/guest', {
    body: { access_code: workshop.accessCode, name: 'Guest' },
  });
  expect(joined.status, JSON.stringify(joined.body)).toBe(201);
  return joined.body.token;
}

describe('password reset', () => {
  it('answers 204 for any address, and mails a link only to an account that has it', async () => {
    const user = await createUser(t, 'Forgetful');
    const unknown = `nobody-${Date.now()}@example.test`;
    expect((await askReset(unknown)).status).toBe(204);
    expect(await mailsTo(unknown)).toEqual([]);
    expect((await askReset(user.email.toUpperCase())).status).toBe(204);
    const [mail] = await t.rows<{ text: string }>(
      sql`select text from outbox where "to" = ${user.email} and subject = ${RESET}`,
    );
    expect(mail!.text).toContain('/reset?token=');
    expect(mail!.text).toContain('30 minutes');
    expect(mail!.text).toContain('If it was not you');
  });

  it('sets the new password and signs in, while every other session, live connection and API token stops working', async () => {
    const user = await createConfirmedUser(t, 'Reset');
    const phone = (await login(user.email)).body.token;
    const live = await sockets.connected({ ...user, token: phone });
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));
    const apiToken = await apiTokenOf(user);

    expect((await askReset(user.email)).status).toBe(204);
    const res = await reset(await mailedToken(t, user.email, RESET, 'reset'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    expect(await works(res.body.token)).toBe(200);
    expect(await works(user.token)).toBe(401);
    expect(await works(phone)).toBe(401);
    expect(await ended).toBe('io server disconnect');
    expect(await apiToken.reads()).toBe(401);
    expectError(await login(user.email), 401, 'invalid_credentials');
    expect((await login(user.email, 'a brand new password')).status).toBe(200);
  });

  it('works once, only with the latest link, and not after 30 minutes', async () => {
    const user = await createUser(t, 'Twice');
    await askReset(user.email);
    const first = await mailedToken(t, user.email, RESET, 'reset');
    await askReset(user.email);
    const second = await mailedToken(t, user.email, RESET, 'reset');
    const refused = await reset(first);
    expectError(refused, 400, 'invalid_request');
    expect(errorOf(refused).details?.[0]?.path).toBe('token');
    expect((await reset(second)).status).toBe(200);
    expectError(await reset(second), 400, 'invalid_request');

    await askReset(user.email);
    const late = await mailedToken(t, user.email, RESET, 'reset');
    await t.write((tx, { oneTimeTokens }) =>
      tx
        .update(oneTimeTokens)
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where(eq(oneTimeTokens.userId, user.id)),
    );
    expectError(await reset(late), 400, 'invalid_request');
  });

  it('confirms an unconfirmed address, which then takes the organization seats waiting for it', async () => {
    const user = await createUser(t, 'Unconfirmed');
    const { orgId, seatOf } = await seatWaitingFor(user.email);
    expect(await seatOf(user.token)).not.toContain(orgId);
    await askReset(user.email);
    const res = await reset(await mailedToken(t, user.email, RESET, 'reset'));
    expect(res.body.user.confirmed_at).not.toBeNull();
    expect(await seatOf(res.body.token)).toContain(orgId);
  });

  it('lets an account without a password (its address proven without its session) choose one', async () => {
    const user = await createUser(t, 'Passwordless');
    const link = await confirmationToken(t, user.email);
    expect((await t.request('POST', '/v1/auth/confirm', { body: { token: link } })).status).toBe(204);
    expectError(await login(user.email), 401, 'invalid_credentials');
    await askReset(user.email);
    const [mail] = await t.rows<{ text: string }>(
      sql`select text from outbox where "to" = ${user.email} and subject = ${RESET}`,
    );
    expect(mail!.text).toContain('set a password');
    expect((await reset(await mailedToken(t, user.email, RESET, 'reset'), PASSWORD)).status).toBe(200);
    expect((await login(user.email)).status).toBe(200);
  });

  it('refuses a short password and a guest', async () => {
    const user = await createUser(t, 'Short');
    await askReset(user.email);
    const short = await reset(await mailedToken(t, user.email, RESET, 'reset'), 'short');
    expectError(short, 400, 'invalid_request');
    expect(errorOf(short).details?.[0]?.path).toBe('password');
    const token = await guest();
    expectError(
      await t.request('POST', '/v1/auth/password_reset', { token, body: { email: user.email } }),
      403,
      'forbidden',
    );
  });

  it('stops mailing one address after three requests in ten minutes, whether an account has it or not', async () => {
    const user = await createUser(t, 'Flooded');
    const unknown = `flood-${Date.now()}@example.test`;
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < 3; i++) expect((await askReset(email)).status).toBe(204);
      const refused = await askReset(email);
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await mailsTo(user.email)).filter((s) => s === RESET)).toHaveLength(3);
  });

  describe('from one client address', () => {
    const tight = useServer({ passwordResetsPerAddressPer10Minutes: 2 });

    it('stops mailing past PASSWORD_RESETS_PER_ADDRESS_PER_10_MINUTES, for any addresses asked for', async () => {
      const [first, second, third] = [
        await createUser(tight, 'Sprayed one'),
        await createUser(tight, 'Sprayed two'),
        await createUser(tight, 'Sprayed three'),
      ];
      // One request per address: no mailbox's own budget is near its end.
      expect((await askReset(first!.email, tight)).status).toBe(204);
      expect((await askReset(`nobody-${Date.now()}@example.test`, tight)).status).toBe(204);
      expectLimited(await askReset(second!.email, tight));
      expectLimited(await askReset(third!.email, tight));
      expect((await mailsTo(first!.email, tight)).filter((s) => s === RESET)).toHaveLength(1);
      expect((await mailsTo(second!.email, tight)).filter((s) => s === RESET)).toEqual([]);
      expect((await mailsTo(third!.email, tight)).filter((s) => s === RESET)).toEqual([]);
    });
  });

  // Instances sharing PostgreSQL count in it (docs/configuration.md#limits-across-instances).
  it.runIf(testStore === 'postgres')(
    'counts the requests for one address on every instance against one budget',
    async () => {
      const user = await createUser(t, 'Flooded everywhere');
      const servers = [t, other, t];
      for (const server of servers) expect((await askReset(user.email, server)).status).toBe(204);
      expectError(await askReset(user.email, other), 429, 'rate_limited');
      expect((await mailsTo(user.email)).filter((s) => s === RESET)).toHaveLength(3);
    },
  );
});

describe('password change', () => {
  const change = (token: string, current_password: string, password = 'another long password') =>
    t.request('PUT', '/v1/user/me/password', { token, body: { current_password, password } });

  it('sets the new password and signs out the other sessions and their live connections, keeping this one', async () => {
    const user = await createUser(t, 'Changer');
    const laptop = (await login(user.email)).body.token;
    const live = await sockets.connected({ ...user, token: laptop });
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));
    const mine = await sockets.connected(user);

    expect((await change(user.token, PASSWORD)).status).toBe(204);
    expect(await works(user.token)).toBe(200);
    expect(await works(laptop)).toBe(401);
    expect(await ended).toBe('io server disconnect');
    expect(mine.socket.connected).toBe(true);
    expectError(await login(user.email), 401, 'invalid_credentials');
    expect((await login(user.email, 'another long password')).status).toBe(200);
  });

  it('refuses a wrong current password with 401 and keeps the old one', async () => {
    const user = await createUser(t, 'Wrong');
    expectError(await change(user.token, 'not my password'), 401, 'invalid_credentials');
    expectError(await change(user.token, PASSWORD, 'short'), 400, 'invalid_request');
    expect(await works(user.token)).toBe(200);
    expect((await login(user.email)).status).toBe(200);
  });

  it('sends an account without a password to the reset', async () => {
    const user = await createUser(t, 'No password');
    await t.write((tx, { users }) => tx.update(users).set({ passwordHash: null }).where(eq(users.id, user.id)));
    const refused = await change(user.token, PASSWORD);
    expectError(refused, 403, 'forbidden');
    expect(errorOf(refused).message).toContain('password_reset');
  });
});

describe('wrong passwords count as failed logins', () => {
  const strict = useServer({ authAttemptsPerMinute: 2 });

  it('locks the account out of logins after failed password changes and address changes', async () => {
    const user = await createUser(strict, 'Guessed');
    const wrong = { current_password: 'guess', password: 'another long password' };
    expectError(
      await strict.request('PUT', '/v1/user/me/password', { token: user.token, body: wrong }),
      401,
      'invalid_credentials',
    );
    expectError(
      await strict.request('PUT', '/v1/user/me/email', {
        token: user.token,
        body: { email: `elsewhere-${Date.now()}@example.test`, password: 'guess' },
      }),
      401,
      'invalid_credentials',
    );
    expectError(await login(user.email, PASSWORD, strict), 429, 'rate_limited');
  });
});

describe('address change', () => {
  const changeAddress = (token: string, email: string, password = PASSWORD) =>
    t.request('PUT', '/v1/user/me/email', { token, body: { email, password } });
  const fresh = (who: string) => `${who}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}@example.test`;

  it('moves the account only once the link mailed to the new address is used, with a notice to the old one', async () => {
    const user = await createConfirmedUser(t, 'Mover');
    const phone = (await login(user.email)).body.token;
    const next = fresh('moved');
    expect((await changeAddress(user.token, next)).status).toBe(202);
    expect((await me(user.token)).email).toBe(user.email);
    expect(await mailsTo(user.email)).toContain(ADDRESS_NOTICE);
    const [notice] = await t.rows<{ text: string }>(
      sql`select text from outbox where "to" = ${user.email} and subject = ${ADDRESS_NOTICE}`,
    );
    expect(notice!.text).toContain(next);
    expect(notice!.text).toContain('If it was not you');

    const link = await mailedToken(t, next, NEW_ADDRESS);
    expect((await t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: link } })).status).toBe(
      204,
    );
    const moved = await me(user.token);
    expect(moved.email).toBe(next);
    expect(moved.confirmed_at).not.toBeNull();
    // Proving the new address ends the other ways in, as any proof of an address does.
    expect(await works(phone)).toBe(401);
    expect((await login(next)).status).toBe(200);
    expectError(await login(user.email), 401, 'invalid_credentials');
    expectError(
      await t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: link } }),
      400,
      'invalid_request',
    );
  });

  it('gives the account the organization seats waiting for the new address', async () => {
    const user = await createConfirmedUser(t, 'Seated');
    const next = fresh('seated');
    const { orgId, seatOf } = await seatWaitingFor(next);
    expect((await changeAddress(user.token, next)).status).toBe(202);
    expect(await seatOf(user.token)).not.toContain(orgId);
    const link = await mailedToken(t, next, NEW_ADDRESS);
    expect((await t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: link } })).status).toBe(
      204,
    );
    expect(await seatOf(user.token)).toContain(orgId);
  });

  it('refuses a wrong password, a taken address, and an address taken before the link is used', async () => {
    const user = await createUser(t, 'Blocked');
    const other = await createUser(t, 'Holder');
    expectError(await changeAddress(user.token, fresh('x'), 'not my password'), 401, 'invalid_credentials');
    expectError(await changeAddress(user.token, other.email.toUpperCase()), 409, 'email_taken');

    const next = fresh('contested');
    expect((await changeAddress(user.token, next)).status).toBe(202);
    const link = await mailedToken(t, next, NEW_ADDRESS);
    const taker = await t.request('POST', '/v1/auth/signup', {
      body: { email: next, password: PASSWORD, name: 'Taker' },
    });
    expect(taker.status).toBe(201);
    expectError(
      await t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: link } }),
      409,
      'email_taken',
    );
    expect((await me(user.token)).email).toBe(user.email);
  });

  it('ends an address change asked for with a password once the owner changes it, resets it or proves the address', async () => {
    // Someone who knew the password asked to move the account to their mailbox; the owner reads the
    // notice and changes the password, resets it, or (an account opened with their address by
    // someone else) confirms it: the link mailed to that other mailbox no longer moves anything.
    const ways: Array<[string, (user: TestUser) => Promise<void>]> = [
      [
        'a password change',
        async (user) => {
          const changed = await t.request('PUT', '/v1/user/me/password', {
            token: user.token,
            body: { current_password: PASSWORD, password: 'only the owner knows' },
          });
          expect(changed.status).toBe(204);
        },
      ],
      [
        'a password reset',
        async (user) => {
          await askReset(user.email);
          expect((await reset(await mailedToken(t, user.email, RESET, 'reset'))).status).toBe(200);
        },
      ],
      [
        "the mailbox owner's confirmation",
        async (user) => {
          const link = await confirmationToken(t, user.email);
          expect((await t.request('POST', '/v1/auth/confirm', { body: { token: link } })).status).toBe(204);
        },
      ],
    ];
    for (const [way, ownerActs] of ways) {
      const user = await (way === "the mailbox owner's confirmation" ? createUser : createConfirmedUser)(t, 'Owner');
      const theirs = fresh('intruder');
      expect((await changeAddress(user.token, theirs)).status).toBe(202);
      const stolen = await mailedToken(t, theirs, NEW_ADDRESS);
      await ownerActs(user);
      const used = await t.request('POST', '/v1/auth/confirm', { body: { token: stolen } });
      expect(used.status, `the address change's link after ${way}`).toBe(400);
      expect(errorOf(used).code).toBe('invalid_request');
      const [row] = await t.rows<{ email: string }>(sql`select email from users where id = ${user.id}`);
      expect(row!.email, `the account's address after ${way}`).toBe(user.email);
    }
  });

  describe('mails limited per account', () => {
    const tight = useServer({ addressChangeMailsPer10Minutes: 2 });

    it('refuses an address change past ADDRESS_CHANGE_MAILS_PER_10_MINUTES, mailing neither address', async () => {
      const user = await createUser(tight, 'Restless');
      const change = (email: string) =>
        tight.request('PUT', '/v1/user/me/email', { token: user.token, body: { email, password: PASSWORD } });
      const [first, second, third] = [fresh('first'), fresh('second'), fresh('third')];
      expect((await change(first)).status).toBe(202);
      expect((await change(second)).status).toBe(202);
      expectLimited(await change(third));
      expect(await mailsTo(third, tight)).toEqual([]);
      expect((await mailsTo(user.email, tight)).filter((s) => s === ADDRESS_NOTICE)).toHaveLength(2);
      expect([...(await mailsTo(first, tight)), ...(await mailsTo(second, tight))]).toEqual([NEW_ADDRESS, NEW_ADDRESS]);
      // Another account has its own budget.
      const other = await createUser(tight, 'Settled');
      expect(
        (
          await tight.request('PUT', '/v1/user/me/email', {
            token: other.token,
            body: { email: fresh('other'), password: PASSWORD },
          })
        ).status,
      ).toBe(202);
    });
  });

  it('moves the account once when its link is sent twice at the same moment', async () => {
    const user = await createUser(t, 'Hasty');
    const next = fresh('hasty');
    expect((await changeAddress(user.token, next)).status).toBe(202);
    const link = await mailedToken(t, next, NEW_ADDRESS);
    const confirm = () => t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: link } });
    const answers = await Promise.all([confirm(), confirm(), confirm()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 400, 400]);
    expect((await me(user.token)).email).toBe(next);
  });

  it('keeps only the latest link working', async () => {
    const user = await createUser(t, 'Undecided');
    const first = fresh('first');
    const second = fresh('second');
    await changeAddress(user.token, first);
    await changeAddress(user.token, second);
    const stale = await mailedToken(t, first, NEW_ADDRESS);
    expectError(
      await t.request('POST', '/v1/auth/confirm', { token: user.token, body: { token: stale } }),
      400,
      'invalid_request',
    );
    expect((await me(user.token)).email).toBe(user.email);
  });
});

describe('where I am signed in', () => {
  const list = (token: string) => t.request<SessionListOutput>('GET', '/v1/user/me/sessions', { token });

  it('lists the sessions with how they were opened, from which browser, and which is this one', async () => {
    const user = await createUser(t, 'Traveller');
    const phone = await t.request<Session>('POST', '/v1/auth/login', {
      body: { email: user.email, password: PASSWORD },
      headers: { 'user-agent': 'Phone Browser/1.0' },
    });
    const res = await list(phone.body.token);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const [newest, signup] = res.body;
    expect(newest).toMatchObject({ method: 'password', user_agent: 'Phone Browser/1.0', current: true });
    expect(signup).toMatchObject({ method: 'password', current: false });
    expect(Date.parse(newest!.created_at)).not.toBeNaN();
    expect(Date.parse(newest!.last_used_at)).not.toBeNaN();
  });

  it('signs one session out at once, with its live connection; a session of someone else is not found', async () => {
    const user = await createUser(t, 'Lost phone');
    const phone = (await login(user.email)).body.token;
    const live = await sockets.connected({ ...user, token: phone });
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));
    const other = await createUser(t, 'Other');
    const theirs = (await list(other.token)).body[0]!.id;
    expectError(await t.request('DELETE', `/v1/user/me/sessions/${theirs}`, { token: user.token }), 404, 'not_found');
    expect(await works(other.token)).toBe(200);

    const phoneId = (await list(user.token)).body.find((s) => !s.current)!.id;
    expect((await t.request('DELETE', `/v1/user/me/sessions/${phoneId}`, { token: user.token })).status).toBe(204);
    expect(await works(phone)).toBe(401);
    expect(await ended).toBe('io server disconnect');
    expect(await works(user.token)).toBe(200);
    expect((await list(user.token)).body).toHaveLength(1);
  });

  it('signs a session out on every instance at once, even one that has just used it', async () => {
    const user = await createUser(t, 'Two instances');
    const phone = (await login(user.email)).body.token;
    expect((await other.request('GET', '/v1/user/me', { token: phone })).status).toBe(200);
    const phoneId = (await list(user.token)).body.find((s) => !s.current)!.id;
    expect((await t.request('DELETE', `/v1/user/me/sessions/${phoneId}`, { token: user.token })).status).toBe(204);
    expectError(await other.request('GET', '/v1/user/me', { token: phone }), 401, 'unauthenticated');
  });

  it('signs out every session but this one', async () => {
    const user = await createUser(t, 'Everywhere');
    const others = [(await login(user.email)).body.token, (await login(user.email)).body.token];
    expect((await t.request('DELETE', '/v1/user/me/sessions', { token: user.token })).status).toBe(204);
    for (const token of others) expect(await works(token)).toBe(401);
    expect((await list(user.token)).body.map((s) => s.current)).toEqual([true]);
  });

  it('is out of reach of API tokens and guests', async () => {
    const user = await createConfirmedUser(t, 'Integrator');
    const { token } = await apiTokenOf(user);
    for (const [method, path, body] of [
      ['GET', '/v1/user/me/sessions'],
      ['DELETE', '/v1/user/me/sessions'],
      ['PUT', '/v1/user/me/password', { current_password: PASSWORD, password: 'another long password' }],
      ['PUT', '/v1/user/me/email', { email: 'api@example.test', password: PASSWORD }],
    ] as const) {
      expectError(await t.request(method, path, { token, body }), 403, 'insufficient_scope');
      expectError(await t.request(method, path, { token: await guest(), body }), 403, 'forbidden');
    }
  });
});
