import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Config } from '../src/config';
import type { JoinAck } from '../src/realtime/events';
import { useRedis, useServer, useSockets, useInstances } from './helpers/cast';
import {
  createConfirmedUser,
  createUser,
  expectError,
  inTurn,
  seedEvent,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { testStore } from './helpers/store';
import { answeredBeyond503 } from './helpers/wait';

/*
 * docs/configuration.md#limits-across-instances, limits across instances: whenever REDIS_URL or
 * DATABASE_URL is set, a budget spent through several instances is the budget of one. Without Redis
 * the instances count in the PostgreSQL they share; with Redis they count there, and while it is
 * away each instance counts on its own instead of failing requests. With neither, the service is
 * one process on its SQLite file and counts in memory.
 */

/** Small budgets, so spending them takes a few requests. */
const LIMITS = {
  joinsPerUserPerMinute: 6,
  replayedEventsPerUserPerMinute: 20,
  importsPerMinute: 3,
  joinAttemptsPerMinute: 3,
  joinAttemptsPerAddressPerMinute: 5,
  invitationMailsPerDay: 5,
  apiTokenRequestsPerMinute: 8,
} satisfies Partial<Config>;

const uniqueKey = () => randomBytes(6).toString('hex');

type Sockets = ReturnType<typeof useSockets>;

/** `times` joins of `user`, each on a fresh socket (no socket's own budget is reached), on `servers` in turn. */
async function joinsInTurn(
  sockets: Sockets,
  servers: TestServer[],
  user: TestUser,
  join: { workshopId: string; times: number; sinceSeq?: number },
): Promise<JoinAck[]> {
  const acks: JoinAck[] = [];
  for (let n = 0; n < join.times; n++) {
    const client = await sockets.connected(user, servers[n % servers.length]);
    acks.push(await client.join(join.workshopId, join.sinceSeq));
  }
  return acks;
}

const refusedJoin = { ok: false, error: { code: 'rate_limited', retry_after: expect.any(Number) } };

/** The tests every shape of sharing passes: each budget spent on all instances is spent once. */
function oneBudgetAcross(instances: () => TestServer[], sockets: Sockets) {
  const first = () => instances()[0]!;
  const on = (n: number) => instances()[n % instances().length]!;

  it("counts an API token's requests on every instance against one budget", async () => {
    const user = await createConfirmedUser(first(), 'Integrator');
    const made = await first().request<{ token: string }>('POST', '/v1/user/me/api_tokens', {
      token: user.token,
      body: { name: 'sync', scopes: ['workshops:read'] },
    });
    const statuses: number[] = [];
    for (let n = 0; n < 9; n++)
      statuses.push((await on(n).request('GET', '/v1/templates', { token: made.body.token })).status);
    expect(statuses).toEqual([...Array(8).fill(200), 429]);
  });

  it("counts a user's joins on every instance against one budget", async () => {
    const user = await createUser(first(), 'Joiner');
    const workshop = await seedWorkshop(first(), user);
    const acks = await joinsInTurn(sockets, instances(), user, { workshopId: workshop.id, times: 9 });
    expect(acks.slice(0, 6)).toEqual(Array(6).fill({ ok: true, seq: 0 }));
    for (const ack of acks.slice(6)) expect(ack).toMatchObject(refusedJoin);
  });

  it('replays one budget of events per user across instances, then answers reload', async () => {
    const user = await createUser(first(), 'Resumer');
    const workshop = await seedWorkshop(first(), user);
    for (let n = 1; n <= 10; n++) await seedEvent(first(), workshop.id, 'addStep', user.id, { step: { id: `s${n}` } });
    const acks = await joinsInTurn(sockets, instances(), user, { workshopId: workshop.id, times: 3, sinceSeq: 0 });
    expect(acks).toEqual([
      { ok: true, seq: 10, replayed: 10 },
      { ok: true, seq: 10, replayed: 10 },
      { ok: true, seq: 10, reload: true },
    ]);
  });

  it('limits imports from URLs per user across instances', async () => {
    const user = await createUser(first(), 'Importer');
    // Refused as a private address after the budget is taken: each attempt counts.
    const attempt = (n: number) =>
      on(n).request('POST', '/v1/workshops', { token: user.token, body: { url: 'http://10.0.0.1/file.json' } });
    for (let n = 0; n < 3; n++) expectError(await attempt(n), 400, 'invalid_request');
    const refused = await attempt(3);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('counts wrong access codes per user and per address on every instance', async () => {
    const guesser = await createUser(first(), 'Guesser');
    const neighbour = await createUser(first(), 'Neighbour');
    const wrongCode = (n: number, token: string) =>
      on(n).request('POST', '/v1/workshops/join', { token, body: { access_code: '000-000-000' } });
    for (let n = 0; n < 3; n++) expect((await wrongCode(n, guesser.token)).status).toBe(404);
    expectError(await wrongCode(3, guesser.token), 429, 'rate_limited');
    // The address (every test client is 127.0.0.1) has two of its five left, whoever spends them.
    for (let n = 1; n < 3; n++) expect((await wrongCode(n, neighbour.token)).status).toBe(404);
    expectError(await wrongCode(0, neighbour.token), 429, 'rate_limited');
  });

  it('lets exactly the budget through when every instance takes from it at once', async () => {
    const limiters = instances().map((server) =>
      server.deps.attempts.limiter({ name: 'probe', points: 10, windowS: 60 }),
    );
    const key = uniqueKey();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => limiters[n % limiters.length]!.take(key)));
    expect(answers.filter((wait) => wait === null)).toHaveLength(10);
    for (const wait of answers.filter((w) => w !== null)) {
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
    }
  });
}

/** The counters of the `rate_limits` table, by key; participation's slots (a join moves the counts) left out. */
const databaseCounters = async (server: TestServer) => {
  const { rateLimits } = server.tables;
  const rows = await server.db
    .select({ key: rateLimits.key, points: rateLimits.points })
    .from(rateLimits)
    .orderBy(rateLimits.key);
  return rows.filter(({ key }) => !key.startsWith('limits:participation:'));
};

describe('limits on instances sharing the database, without Redis', () => {
  const [a, b, c] = useInstances(3, LIMITS);
  const instances = () => [a, b, c];
  const sockets = useSockets(a);

  describe.runIf(testStore === 'postgres')('on PostgreSQL (DATABASE_URL)', () => {
    oneBudgetAcross(instances, sockets);
  });

  it("sends exactly the day's invitation mails of concurrent requests on every instance", async () => {
    const inviter = await createUser(a, 'Inviter');
    const workshops = await inTurn(6, () => seedWorkshop(a, inviter));
    // Two at once on each workshop, through different instances: twelve mails asked, five sent.
    const answers = await Promise.all(
      workshops.flatMap((workshop, i) =>
        [0, 1].map((j) =>
          answeredBeyond503(() =>
            instances()[(i + j) % 3]!.request('POST', `/v1/workshops/${workshop.id}/invitations`, {
              token: inviter.token,
              body: { emails: `guest-${i}-${j}-${uniqueKey()}@example.test`, content: 'Join us.' },
            }),
          ),
        ),
      ),
    );
    expect(
      answers.filter((res) => res.status === 201),
      JSON.stringify(answers.map((r) => [r.status, r.body])),
    ).toHaveLength(5);
    for (const refused of answers.filter((res) => res.status !== 201)) expectError(refused, 429, 'rate_limited');
    const { outbox } = a.tables;
    expect((await a.db.select({ n: count() }).from(outbox).where(eq(outbox.senderId, inviter.id)))[0]!.n).toBe(5);
  });
});

describe.skipIf(!redisAvailable)('limits on instances sharing Redis', () => {
  const redis = useRedis();
  const [a, b] = useInstances(2, () => ({ ...LIMITS, redisUrl: redis.url }));
  const sockets = useSockets(a);
  oneBudgetAcross(() => [a, b], sockets);

  it('keeps serving while Redis is away, each instance counting on its own', async () => {
    const user = await createUser(a, 'Offline joiner');
    const workshop = await seedWorkshop(a, user);
    await redis.stop();
    try {
      for (const server of [a, b]) {
        const acks = await joinsInTurn(sockets, [server], user, { workshopId: workshop.id, times: 7 });
        expect(acks.slice(0, 6)).toEqual(Array(6).fill({ ok: true, seq: 0 }));
        expect(acks[6]).toMatchObject(refusedJoin);
      }
      const attempt = (server: TestServer) =>
        server.request('POST', '/v1/workshops', { token: user.token, body: { url: 'http://10.0.0.1/file.json' } });
      for (const server of [a, b]) {
        for (let n = 0; n < 3; n++) expectError(await attempt(server), 400, 'invalid_request');
        expectError(await attempt(server), 429, 'rate_limited');
      }
    } finally {
      await redis.start();
    }
  });
});

describe.runIf(testStore === 'postgres')('limits counted in PostgreSQL, without Redis', () => {
  const [a, b] = useInstances(2, LIMITS);

  it('counts only what counts: a successful login or join leaves every budget as it was', async () => {
    const user = await createUser(a, 'Welcome');
    const workshop = await seedWorkshop(a, await createUser(a, 'Host'));
    // What was spent: a point taken and given back leaves its counter at what it was (or at 0 where there was none).
    const spent = async () => (await databaseCounters(a)).filter(({ points }) => points > 0);
    const before = await spent();
    // createUser's password.
    expect(
      (await b.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'correct horse battery' } }))
        .status,
    ).toBe(200);
    expect(
      (await a.request('POST', '/v1/workshops/join', { token: user.token, body: { access_code: workshop.accessCode } }))
        .status,
    ).toBe(200);
    expect(await spent()).toEqual(before);
    // A failed one spends a point.
    expect(
      (await b.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'not the password' } })).status,
    ).toBe(401);
    expect((await spent()).length).toBeGreaterThan(before.length);
  });
});

describe('wrong access codes sent all at once', () => {
  // A server of its own: no other test has spent its address's budget.
  const t = useServer(LIMITS);

  it('are answered 404 only within the budget, however many arrive together', async () => {
    const guesser = await createUser(t, 'Guesser');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.request('POST', '/v1/workshops/join', { token: guesser.token, body: { access_code: '000-000-000' } }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(LIMITS.joinAttemptsPerMinute);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - LIMITS.joinAttemptsPerMinute);
  });
});

describe.runIf(testStore === 'sqlite')(
  'limits of one process on its SQLite file, without Redis or DATABASE_URL',
  () => {
    const t = useServer(LIMITS);

    it('counts in memory: a budget is kept without a write to the database', async () => {
      const guesser = await createUser(t, 'Guesser');
      const wrongCode = () =>
        t.request('POST', '/v1/workshops/join', { token: guesser.token, body: { access_code: '000-000-000' } });
      for (let n = 0; n < 3; n++) expect((await wrongCode()).status).toBe(404);
      expectError(await wrongCode(), 429, 'rate_limited');
      expect(await databaseCounters(t)).toEqual([]);
    });
  },
);
