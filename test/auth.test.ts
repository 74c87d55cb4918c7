import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { InferOutput } from 'valibot';
import type { SessionOutput } from '../src/modules/auth/schemas';

type Session = InferOutput<typeof SessionOutput>;
import { createUser, expectError, errorOf } from './helpers/factories';
import { useServer } from './helpers/cast';

const t = useServer();

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
