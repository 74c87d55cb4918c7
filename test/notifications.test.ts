import { beforeEach, describe, expect, it } from 'vitest';
import { write } from '../src/db/write';
import type { NotificationOutput } from '../src/modules/notifications/schemas';
import { createUser, expectError, seedNotification, type TestUser, errorOf, inTurn } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [other] = useUsers(t, 'Other');

/** Each test gets a fresh user, so their notifications are theirs alone. */
let me: TestUser;
beforeEach(async () => {
  me = await createUser(t, 'Me');
});

const at = (minute: number) => new Date(Date.UTC(2020, 0, 6, 10, minute)).toISOString();
const list = (query = '', token = me.token) =>
  t.request<NotificationOutput[]>('GET', `/v1/user/me/notifications${query}`, { token });
const readFlags = async () => Object.fromEntries((await list('?per_page=100')).body.map((n) => [n.data.n, n.read]));

function seedMine(count: number) {
  return inTurn(count, (i) => seedNotification(t, me, { type: 'message', data: { n: i }, createdAt: at(i) }));
}

describe('GET /v1/user/me/notifications', () => {
  it("lists the caller's notifications newest first, in the spec's shape", async () => {
    await seedMine(3);
    await seedNotification(t, other, { data: { n: 'not mine' } });
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.map((n) => n.data.n)).toEqual([2, 1, 0]);
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      type: 'message',
      created_at: at(2),
      updated_at: at(2),
      data: { n: 2 },
      read: false,
    });
    expect(res.headers.get('x-total-count')).toBe('3');
  });

  it('shows notifications written by the event recorder, newest first even within one millisecond', async () => {
    await write(t.deps, async (_tx, changes) => {
      changes.notify([me.id, other.id], 'changeStep', { step: { id: 's1', name: 'First', instructions: '' } });
      changes.notify([me.id], 'changeStep', { step: { id: 's2', name: 'Second', instructions: '' } });
    });
    const res = await list();
    expect(res.body.map((n: any) => n.data.step.name)).toEqual(['Second', 'First']);
    expect(res.body.every((n: any) => n.type === 'changeStep' && n.read === false)).toBe(true);
  });

  it('pages with page and per_page, with X-Total-Count and Link', async () => {
    await seedMine(5);
    const base = `${t.url}/v1/user/me/notifications`;
    const second = await list('?per_page=2&page=2');
    expect(second.body.map((n) => n.data.n)).toEqual([2, 1]);
    expect(second.headers.get('x-total-count')).toBe('5');
    expect(second.headers.get('link')).toBe(
      [
        `<${base}?per_page=2&page=1>; rel="first"`,
        `<${base}?per_page=2&page=1>; rel="prev"`,
        `<${base}?per_page=2&page=3>; rel="next"`,
        `<${base}?per_page=2&page=3>; rel="last"`,
      ].join(', '),
    );
    expect((await list('?per_page=2&page=3')).body.map((n) => n.data.n)).toEqual([0]);
    expect((await list('?per_page=2&page=4')).body).toEqual([]);

    const all = await list();
    expect(all.body).toHaveLength(5);
    expect(all.headers.get('link')).toBe(
      `<${base}?page=1&per_page=30>; rel="first", <${base}?page=1&per_page=30>; rel="last"`,
    );
  });

  it('defaults to 30 a page and serves at most 100', async () => {
    for (let i = 0; i < 105; i++) await seedNotification(t, me, { data: { n: i } });
    expect((await list()).body).toHaveLength(30);
    const big = await list('?per_page=500');
    expect(big.body).toHaveLength(100);
    expect(big.headers.get('x-total-count')).toBe('105');
    expect(big.headers.get('link')).toContain('per_page=100&page=2>; rel="next"');
  });

  it('refuses bad paging values and needs a token', async () => {
    for (const query of [
      '?page=0',
      '?page=-1',
      '?page=x',
      '?per_page=0',
      '?per_page=1.5',
      '?per_page=-3',
      '?page=1&page=2',
    ]) {
      const res = await list(query);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path, query).toMatch(/^(page|per_page)$/);
    }
    expectError(await t.request('GET', '/v1/user/me/notifications'), 401, 'unauthenticated');
  });
});

describe('PUT /v1/user/me/notifications/read', () => {
  it('marks every notification read when no id is given', async () => {
    const rows = await seedMine(3);
    const theirs = await seedNotification(t, other);
    const res = await t.request('PUT', '/v1/user/me/notifications/read', { token: me.token });
    expect(res.status).toBe(204);
    expect(Object.values(await readFlags())).toEqual([true, true, true]);
    const after = (await list()).body;
    expect(after[0]!.updated_at > rows[2]!.updatedAt).toBe(true);
    expect((await list('', other.token)).body.find((n) => n.id === theirs.id)?.read).toBe(false);

    // An explicit null means the same, and a body is optional.
    await seedMine(1);
    const again = await t.request('PUT', '/v1/user/me/notifications/read', {
      token: me.token,
      body: { last_notification_id: null },
    });
    expect(again.status).toBe(204);
    expect((await list()).body.every((n) => n.read)).toBe(true);
  });

  it('marks only those created up to and including the given one', async () => {
    const rows = await seedMine(4);
    const res = await t.request('PUT', '/v1/user/me/notifications/read', {
      token: me.token,
      body: { last_notification_id: rows[1]!.id },
    });
    expect(res.status).toBe(204);
    expect(await readFlags()).toEqual({ 0: true, 1: true, 2: false, 3: false });
  });

  it('breaks ties within one millisecond by creation order', async () => {
    const same = at(30);
    const rows = await inTurn(3, (n) => seedNotification(t, me, { data: { n }, createdAt: same }));
    await t.request('PUT', '/v1/user/me/notifications/read', {
      token: me.token,
      body: { last_notification_id: rows[1]!.id },
    });
    expect(await readFlags()).toEqual({ 0: true, 1: true, 2: false });
  });

  it("answers 404 for an unknown id or someone else's, changing nothing", async () => {
    await seedMine(2);
    const theirs = await seedNotification(t, other);
    for (const id of ['nope', theirs.id]) {
      expectError(
        await t.request('PUT', '/v1/user/me/notifications/read', {
          token: me.token,
          body: { last_notification_id: id },
        }),
        404,
        'not_found',
      );
    }
    const bad = await t.request('PUT', '/v1/user/me/notifications/read', {
      token: me.token,
      body: { last_notification_id: 7 },
    });
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('last_notification_id');
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: '/v1/user/me/notifications/read', token: me.token },
      { body: '{"last', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: '/v1/user/me/notifications/read', token: me.token },
      { body: 'x', contentType: 'text/plain' },
    );
    expect(Object.values(await readFlags())).toEqual([false, false]);
  });
});

describe('PUT /v1/user/me/notifications/:id', () => {
  it('marks one notification read and unread again', async () => {
    const [first] = await seedMine(2);
    const path = `/v1/user/me/notifications/${first!.id}`;
    expect((await t.request('PUT', path, { token: me.token, body: { read: true } })).status).toBe(204);
    expect(await readFlags()).toEqual({ 0: true, 1: false });
    const marked = (await list()).body.find((n) => n.id === first!.id)!;
    expect(marked.updated_at > marked.created_at).toBe(true);
    expect((await t.request('PUT', path, { token: me.token, body: { read: false } })).status).toBe(204);
    expect(await readFlags()).toEqual({ 0: false, 1: false });
  });

  it("refuses a missing or non-boolean read, and someone else's notification", async () => {
    const [mine] = await seedMine(1);
    const theirs = await seedNotification(t, other);
    for (const body of [{}, { read: 'yes' }, { read: 1 }]) {
      const res = await t.request<NotificationOutput>('PUT', `/v1/user/me/notifications/${mine!.id}`, {
        token: me.token,
        body,
      });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('read');
    }
    expectError(
      await t.request<NotificationOutput>('PUT', `/v1/user/me/notifications/${theirs.id}`, {
        token: me.token,
        body: { read: true },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('PUT', '/v1/user/me/notifications/nope', { token: me.token, body: { read: true } }),
      404,
      'not_found',
    );
    expect((await list('', other.token)).body.find((n) => n.id === theirs.id)?.read).toBe(false);
    expect(Object.values(await readFlags())).toEqual([false]);
  });
});
