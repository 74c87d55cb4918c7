import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { CSV_MAX_ROWS } from '../src/modules/cards/csv-plan';
import { WORKSHOP_MAX_CARDS } from '../src/domain/cards';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useCast, useServer } from './helpers/cast';
import {
  createUser,
  errorOf,
  expectError,
  seedCard,
  seedCardScene,
  seedCurrentStep,
  seedFile,
  seedMember,
  seedWorkshop,
} from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';

/* Defects found by hostile input, each with the request that showed it. */

const cast = useCast();

describe('wrong types', () => {
  it('refuses an array where an object is required, at the top and nested, and changes nothing', async () => {
    const { t, facilitator } = cast;
    const workshop = await seedWorkshop(t, facilitator, { title: 'Kept' });
    const path = `/v1/workshops/${workshop.id}`;
    for (const body of [[], { vote_limit: [] }, { view: [] }]) {
      const res = await t.request('PUT', path, { token: facilitator.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.message).toBe('Expected an object but received an array.');
    }
    const steps = `${path}/steps`;
    expectError(
      await t.request('POST', steps, { token: facilitator.token, body: { name: 'Vote', prefs: [] } }),
      400,
      'invalid_request',
    );
    expect((await t.request('GET', steps, { token: facilitator.token })).body).toEqual([]);
    expect((await t.request<WorkshopOutput>('GET', path, { token: facilitator.token })).body.title).toBe('Kept');
  });

  it('names a missing member plainly', async () => {
    const res = await cast.t.request('POST', '/v1/auth/signup', {
      body: { email: 'nameless@example.test', password: 'long enough' },
    });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details).toEqual([{ path: 'name', message: 'name is required.' }]);
  });
});

describe('blob references', () => {
  it('refuses a step illustration made of another user’s upload, as attachments do', async () => {
    const { t, facilitator, participant } = cast;
    const workshop = await seedWorkshop(t, facilitator);
    await seedMember(t, workshop.id, participant);
    const step = await seedCurrentStep(t, workshop.id, {});
    const theirs = await seedFile(t, participant, { name: 'theirs.png' });
    const blob = {
      url: `http://example.test/${theirs.key}`,
      mimetype: theirs.mimetype,
      key: theirs.key,
      container: theirs.container,
    };
    const res = await t.request('POST', `/v1/workshops/${workshop.id}/steps/${step.id}/illustration`, {
      token: facilitator.token,
      body: { blob },
    });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.path).toBe('blob.key');
  });
});

describe('imports', () => {
  it('refuses a CSV with more rows than an import may hold with 413, changing nothing, and takes one at the limit', async () => {
    const { t, facilitator } = cast;
    const workshop = await seedWorkshop(t, facilitator);
    const path = `/v1/workshops/${workshop.id}/cards`;
    const upload = (rows: number) => {
      const form = new FormData();
      const lines = Array.from({ length: rows }, (_, n) => `idea,Idea ${n},,Cluster ${n % 50}`);
      form.append(
        'file',
        new Blob([`type,title,content,cluster\n${lines.join('\n')}\n`], { type: 'text/csv' }),
        'cards.csv',
      );
      return t.request('PUT', path, { token: facilitator.token, rawBody: form });
    };
    const refused = await upload(CSV_MAX_ROWS + 1);
    expectError(refused, 413, 'payload_too_large');
    // The limit as English writes a number (the message is the catalog's, numbers by Intl).
    expect(errorOf(refused).message).toContain(CSV_MAX_ROWS.toLocaleString('en'));
    expect((await t.request('GET', path, { token: facilitator.token })).body).toEqual([]);
    const taken = await upload(CSV_MAX_ROWS);
    expect(taken.status, JSON.stringify(taken.body).slice(0, 300)).toBe(200);
    expect(taken.body).toHaveLength(CSV_MAX_ROWS + 50);
  });
});

describe('card limits', () => {
  it('refuses a card past the most a workshop holds with 409, creating nothing', async () => {
    const { t, facilitator } = cast;
    const workshop = await seedWorkshop(t, facilitator);
    const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    // Fill the workshop up to the limit directly: going through the API would take minutes.
    const fillers = Array.from({ length: WORKSHOP_MAX_CARDS - 1 }, (_, index) => {
      const n = index + 1;
      return {
        id: `filler-${workshop.id}-${n}`,
        workshopId: workshop.id,
        number: n + 1,
        type: 'idea' as const,
        title: 'Filler',
        content: '',
        aside: false,
        parentId: cluster.id,
        position: n - 1,
        userId: facilitator.id,
        createdAt: '',
        updatedAt: '',
      };
    });
    await t.write(async (tx, { cards }) => {
      for (let start = 0; start < fillers.length; start += 500)
        await tx.insert(cards).values(fillers.slice(start, start + 500));
    });
    const path = `/v1/workshops/${workshop.id}/cards`;
    const refused = await t.request('POST', path, {
      token: facilitator.token,
      body: { type: 'cluster', title: 'One too many' },
    });
    expectError(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ error: { message: expect.stringContaining(String(WORKSHOP_MAX_CARDS)) } });
    const [counted] = await t.rows<{ n: number }>(
      sql`SELECT count(*) AS n FROM cards WHERE workshop_id = ${workshop.id}`,
    );
    expect(Number(counted!.n)).toBe(WORKSHOP_MAX_CARDS);
  });
});

// PostgreSQL refuses a NUL character in text (a 500 it was) where SQLite stored it, and the stores
// replace a lone surrogate differently: both refused, so both stores answer alike.
describe('NUL characters', () => {
  const NUL = '\u0000';

  it('refuses one in a body’s text with 400, naming the member, and writes nothing', async () => {
    const { t, facilitator } = cast;
    const { workshop, card, path: comments } = await seedCardScene(cast, 'comments', { title: 'Kept' });
    const cards = `/v1/workshops/${workshop.id}/cards`;
    const refusals = [
      { method: 'POST', path: cards, body: { type: 'cluster', title: `Nul${NUL}led` }, member: 'title' },
      { method: 'POST', path: comments, body: { content: `${NUL}` }, member: 'content' },
      { method: 'PUT', path: `/v1/workshops/${workshop.id}`, body: { title: `Re${NUL}named` }, member: 'title' },
      // Half of a surrogate pair (JSON's "\ud83d"): the stores would replace it differently.
      { method: 'POST', path: cards, body: { type: 'cluster', title: 'Half \ud83d' }, member: 'title' },
    ];
    for (const { method, path, body, member } of refusals) {
      const res = await t.request(method, path, { token: facilitator.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details).toEqual([{ path: member, message: expect.stringContaining('NUL') }]);
    }
    // A member the schema does not know is ignored, NUL or not.
    expect(
      (await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: facilitator.token, body: { unknown: NUL } }))
        .status,
    ).toBe(200);

    expect(
      (await t.request<unknown[]>('GET', cards, { token: facilitator.token })).body.map(
        (c) => (c as { id: string }).id,
      ),
    ).toEqual([card.id]);
    expect((await t.request('GET', comments, { token: facilitator.token })).body).toEqual([]);
    expect(
      (await t.request<WorkshopOutput>('GET', `/v1/workshops/${workshop.id}`, { token: facilitator.token })).body.title,
    ).toBe('Kept');
  });

  it('refuses one in a query parameter with 400', async () => {
    const { t, facilitator } = cast;
    const workshop = await seedWorkshop(t, facilitator);
    const res = await t.request('GET', `/v1/workshops/${workshop.id}/cards?parent=%00`, { token: facilitator.token });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.path).toBe('parent');
  });

  it('answers 404 for one in a route parameter, an id that names nothing, and writes nothing', async () => {
    const { t, facilitator } = cast;
    const workshop = await seedWorkshop(t, facilitator);
    expectError(await t.request('GET', '/v1/workshops/%00', { token: facilitator.token }), 404, 'not_found');
    expectError(
      await t.request('GET', `/v1/workshops/${workshop.id}%00`, { token: facilitator.token }),
      404,
      'not_found',
    );
    const cards = `/v1/workshops/${workshop.id}/cards`;
    expectError(
      await t.request('POST', '/v1/workshops/%00/cards', {
        token: facilitator.token,
        body: { type: 'cluster', title: 'Lost' },
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('POST', `${cards}/%00/comments`, { token: facilitator.token, body: { content: 'Lost' } }),
      404,
      'not_found',
    );
    expect((await t.request('GET', cards, { token: facilitator.token })).body).toEqual([]);
  });
});

describe('throttling', () => {
  const t = useServer({ authAttemptsPerMinute: 5, joinAttemptsPerMinute: 3 });

  const login = (email: string, password: string, headers: Record<string, string> = {}) =>
    t.request('POST', '/v1/auth/login', { body: { email, password }, headers });

  it('answers 429 with Retry-After after repeated failed logins on one account, and leaves other accounts alone', async () => {
    const victim = await createUser(t, 'Victim');
    const bystander = await createUser(t, 'Bystander');
    for (let i = 0; i < 5; i++) expectError(await login(victim.email, `wrong ${i}`), 401, 'invalid_credentials');
    const refused = await login(victim.email, 'wrong again');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // The account's budget is spent for the rest of the minute, whatever the password.
    expectError(await login(victim.email, 'correct horse battery'), 429, 'rate_limited');
    // Another account from the same address still logs in.
    expect((await login(bystander.email, 'correct horse battery')).status).toBe(200);
  });

  it('counts only failures: a right password after a few wrong ones works', async () => {
    const user = await createUser(t, 'Forgetful');
    for (let i = 0; i < 4; i++) expectError(await login(user.email, `wrong ${i}`), 401, 'invalid_credentials');
    expect((await login(user.email, 'correct horse battery')).status).toBe(200);
  });

  it('limits signups (each sends a mail) per address', async () => {
    const fresh = await startTestServer({ authAttemptsPerMinute: 3 });
    try {
      const signup = (n: number) =>
        fresh.request('POST', '/v1/auth/signup', {
          body: { email: `spray-${n}@example.test`, password: 'long enough', name: 'S' },
        });
      for (let n = 0; n < 3; n++) expect((await signup(n)).status).toBe(201);
      const refused = await signup(3);
      expectError(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toBeTruthy();
      const [counted] = await fresh.rows<{ n: number }>(sql`select count(*) AS n from outbox`);
      expect(Number(counted!.n)).toBe(3);
    } finally {
      await fresh.close();
    }
  });
});

describe('client addresses behind a proxy', () => {
  const wrongCode = (t: TestServer, token: string, headers: Record<string, string>) =>
    t.request('POST', '/v1/workshops/join', { token, body: { access_code: '000-000-000' }, headers });

  it('ignores forwarded addresses unless the proxy is trusted', async () => {
    const t = await startTestServer({ joinAttemptsPerAddressPerMinute: 2 });
    try {
      const users = await Promise.all([1, 2, 3].map((n) => createUser(t, `Guesser ${n}`)));
      // Every guess counts against the socket's address, whatever the header claims.
      expect((await wrongCode(t, users[0]!.token, { 'fly-client-ip': '203.0.113.1' })).status).toBe(404);
      expect((await wrongCode(t, users[1]!.token, { 'fly-client-ip': '203.0.113.2' })).status).toBe(404);
      expectError(await wrongCode(t, users[2]!.token, { 'fly-client-ip': '203.0.113.3' }), 429, 'rate_limited');
    } finally {
      await t.close();
    }
  });

  it('keeps one budget per client address Fly names', async () => {
    const t = await startTestServer({ joinAttemptsPerAddressPerMinute: 2, trustProxy: 'fly' });
    try {
      const users = await Promise.all([1, 2, 3, 4, 5].map((n) => createUser(t, `Client ${n}`)));
      const wrong = (token: string, address: string) => wrongCode(t, token, { 'fly-client-ip': address });
      expect((await wrong(users[0]!.token, '198.51.100.1')).status).toBe(404);
      expect((await wrong(users[1]!.token, '198.51.100.1')).status).toBe(404);
      expect((await wrong(users[2]!.token, '198.51.100.1')).status).toBe(429);
      // Someone else behind the same proxy keeps their own budget.
      expect((await wrong(users[3]!.token, '198.51.100.2')).status).toBe(404);
      // Without Fly's header, the last X-Forwarded-For entry (the one the proxy added) counts.
      expect((await wrongCode(t, users[4]!.token, { 'x-forwarded-for': '198.51.100.1, 198.51.100.3' })).status).toBe(
        404,
      );
    } finally {
      await t.close();
    }
  });

  it('behind another proxy, counts the X-Forwarded-For entry it added and ignores a Fly header a client sends', async () => {
    const t = await startTestServer({ joinAttemptsPerAddressPerMinute: 2, trustProxy: 'forwarded' });
    try {
      const users = await Promise.all([1, 2, 3].map((n) => createUser(t, `Proxied ${n}`)));
      const forwardedFor = (spoofed: string) => ({ 'x-forwarded-for': '198.51.100.7', 'fly-client-ip': spoofed });
      expect((await wrongCode(t, users[0]!.token, forwardedFor('203.0.113.1'))).status).toBe(404);
      expect((await wrongCode(t, users[1]!.token, forwardedFor('203.0.113.2'))).status).toBe(404);
      expectError(await wrongCode(t, users[2]!.token, forwardedFor('203.0.113.3')), 429, 'rate_limited');
    } finally {
      await t.close();
    }
  });

  it('counts an IPv6 client by its /64', async () => {
    const t = await startTestServer({ joinAttemptsPerAddressPerMinute: 2, trustProxy: 'forwarded' });
    try {
      const users = await Promise.all([1, 2, 3, 4].map((n) => createUser(t, `Six ${n}`)));
      const from = (address: string) => ({ 'x-forwarded-for': address });
      expect((await wrongCode(t, users[0]!.token, from('2001:db8:1:2::1'))).status).toBe(404);
      expect((await wrongCode(t, users[1]!.token, from('2001:db8:1:2:ffff::9'))).status).toBe(404);
      expectError(await wrongCode(t, users[2]!.token, from('2001:db8:1:2:abcd:1:2:3')), 429, 'rate_limited');
      // Another /64 has its own budget.
      expect((await wrongCode(t, users[3]!.token, from('2001:db8:1:3::1'))).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
