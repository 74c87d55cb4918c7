import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELD_MS, KEPT_MS, sweepExpiredKeys } from '../src/modules/idempotency/keys';
import { WITHOUT_TOKEN } from '../src/modules/idempotency/middleware';
import { storedKey } from '../src/modules/idempotency/sealing';
import type { OpenApiDocument } from './helpers/openapi';
import type { CardOutput } from '../src/domain/cards';
import { createUser, eventLog, expectError, seedCard, seedWorkshopWith, type TestUser } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';
import { failNextStatement, storeBusyError } from './helpers/statements';

/*
 * Idempotency-Key on writes (docs/api.md#idempotent-writes), over real HTTP, on the run's store; one case with two
 * instances on one database.
 */

let t: TestServer;
let facilitator: TestUser;
let participant: TestUser;
let workshopId: string;
let clusterId: string;

beforeAll(async () => {
  t = await startTestServer();
  facilitator = await createUser(t, 'Facilitator');
  participant = await createUser(t, 'Participant');
  const workshop = await seedWorkshopWith(t, facilitator, [participant]);
  workshopId = workshop.id;
  clusterId = (await seedCard(t, workshopId, facilitator, { type: 'cluster' })).id;
});
afterAll(() => t?.close());

let keys = 0;
const freshKey = () => `key-${process.pid}-${++keys}-${Math.random().toString(36).slice(2)}`;
/** How a key is found in the table (an HMAC of it). */
const stored = (key: string, server: TestServer = t) => storedKey(server.deps.config.secret, key);

const addIdea = (key: string, title: string, token = participant.token) =>
  t.request<CardOutput>('POST', `/v1/workshops/${workshopId}/cards`, {
    token,
    body: { type: 'idea', title, parent: clusterId },
    headers: { 'idempotency-key': key },
  });

async function ideasTitled(title: string): Promise<number> {
  const { cards } = t.tables;
  return (await t.db.select({ id: cards.id }).from(cards).where(eq(cards.title, title))).length;
}

const eventsOf = async (action: string) => (await eventLog(t, workshopId)).filter((e) => e.action === action).length;

describe('Idempotency-Key', () => {
  it('replays a repeat with the kept answer, writing nothing and sending no event', async () => {
    const key = freshKey();
    const before = await eventsOf('addCard');
    const first = await addIdea(key, 'Replayed idea');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await addIdea(key, 'Replayed idea');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(again.body).toEqual(first.body);
    expect(await ideasTitled('Replayed idea')).toBe(1);
    expect((await eventsOf('addCard')) - before).toBe(1);
  });

  it('answers 422 for the same key with another body, path or method, and runs none of them', async () => {
    const key = freshKey();
    expect((await addIdea(key, 'First body')).status).toBe(201);
    expectError(await addIdea(key, 'Second body'), 422, 'idempotency_key_reused');
    const card = await seedCard(t, workshopId, participant, { type: 'idea', parentId: clusterId });
    const otherPath = await t.request('PUT', `/v1/workshops/${workshopId}/cards/${card.id}`, {
      token: participant.token,
      body: { title: 'First body' },
      headers: { 'idempotency-key': key },
    });
    expectError(otherPath, 422, 'idempotency_key_reused');
    expect(await ideasTitled('Second body')).toBe(0);
    const { cards } = t.tables;
    const [unchanged] = await t.db.select({ title: cards.title }).from(cards).where(eq(cards.id, card.id));
    expect(unchanged!.title).not.toBe('First body');
  });

  it("keeps keys per user: another user's same key and body runs for them", async () => {
    const key = freshKey();
    expect((await addIdea(key, 'Per-user idea')).status).toBe(201);
    const theirs = await addIdea(key, 'Per-user idea', facilitator.token);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await ideasTitled('Per-user idea')).toBe(2);
  });

  it('gives two identical requests sent at once one write: the other is 409 with Retry-After: 1, or the replay', async () => {
    for (let round = 0; round < 5; round++) {
      const key = freshKey();
      const title = `Concurrent idea ${round}`;
      const answers = await Promise.all([addIdea(key, title), addIdea(key, title), addIdea(key, title)]);
      expect(await ideasTitled(title)).toBe(1);
      const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
      expect(fresh).toHaveLength(1);
      for (const answer of answers) {
        if (answer === fresh[0]) continue;
        if (answer.status === 409) {
          expectError(answer, 409, 'idempotency_key_in_use');
          expect(answer.headers.get('retry-after')).toBe('1');
        } else {
          expect(answer.status).toBe(201);
          expect(answer.headers.get('idempotent-replayed')).toBe('true');
          expect(answer.body).toEqual(fresh[0]!.body);
        }
      }
    }
  });

  it('does not keep a 5xx: the retry with the same key runs again', async () => {
    const key = freshKey();
    const failing = failNextStatement(/^insert into "cards"/i, storeBusyError());
    const failed = await addIdea(key, 'After a 503');
    expect(failing.stop()).toBe(true);
    expectError(failed, 503, 'service_unavailable');
    expect(await ideasTitled('After a 503')).toBe(0);
    const retried = await addIdea(key, 'After a 503');
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await ideasTitled('After a 503')).toBe(1);
  });

  it('does not keep a 429, and keeps a 4xx answer like any other', async () => {
    const limited = await startTestServer({ joinAttemptsPerMinute: 1 });
    try {
      const user = await createUser(limited, 'Guesser');
      const join = (key: string) =>
        limited.request('POST', '/v1/workshops/join', {
          token: user.token,
          body: { access_code: '000-000-001' },
          headers: { 'idempotency-key': key },
        });
      const wrong = freshKey();
      expectError(await join(wrong), 404, 'not_found');
      const replayed = await join(wrong);
      expectError(replayed, 404, 'not_found');
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const over = freshKey();
      expectError(await join(over), 429, 'rate_limited');
      const { idempotencyKeys } = limited.tables;
      const kept = await limited.db
        .select({ key: idempotencyKeys.key })
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.owner, user.id));
      expect(kept.map((row) => row.key)).toEqual([stored(wrong, limited)]);
    } finally {
      await limited.close();
    }
  });

  it('replays a DELETE with its 204', async () => {
    const card = await seedCard(t, workshopId, participant, { type: 'idea', parentId: clusterId });
    const key = freshKey();
    const remove = () =>
      t.request('DELETE', `/v1/workshops/${workshopId}/cards/${card.id}`, {
        token: participant.token,
        headers: { 'idempotency-key': key },
      });
    expect((await remove()).status).toBe(204);
    const again = await remove();
    expect(again.status).toBe(204);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys the routes without a token by the key alone: a repeated signup answers the same session', async () => {
    const key = freshKey();
    const body = { email: `idem-${process.pid}-${keys}@example.test`, password: 'correct horse battery', name: 'Once' };
    const first = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const again = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.token).toBe(first.body.token);
    const { users } = t.tables;
    expect(await t.db.select({ id: users.id }).from(users).where(eq(users.email, body.email))).toHaveLength(1);
  });

  it('looks at the key of a route without a token after its limits: what an address is refused leaves nothing kept', async () => {
    const limited = await startTestServer({ loginFailuresPerAddressPerMinute: 3 });
    try {
      const confirm = (key: string, token: string) =>
        limited.request('POST', '/v1/auth/confirm', { body: { token }, headers: { 'idempotency-key': key } });
      const { idempotencyKeys } = limited.tables;
      const keptWithoutToken = async () =>
        (
          await limited.db
            .select({ key: idempotencyKeys.key })
            .from(idempotencyKeys)
            .where(eq(idempotencyKeys.owner, ''))
        ).length;
      const first = freshKey();
      expectError(await confirm(first, 'not-a-real-link-0'), 400, 'invalid_request');
      expect((await confirm(first, 'not-a-real-link-0')).headers.get('idempotent-replayed')).toBe('true');
      for (let n = 1; n <= 2; n++)
        expectError(await confirm(freshKey(), `not-a-real-link-${n}`), 400, 'invalid_request');
      // The address has used its three wrong links: six more keys, each refused before its key is
      // looked at, so none is kept; and a used key sent with another body is refused by the limit
      // first, not answered 422.
      for (let n = 3; n <= 8; n++) expectError(await confirm(freshKey(), `not-a-real-link-${n}`), 429, 'rate_limited');
      expectError(await confirm(first, 'another-link'), 429, 'rate_limited');
      expect(await keptWithoutToken()).toBe(3);
    } finally {
      await limited.close();
    }
  });

  it('spends nothing of a limit on what the key answers: a repeated signup is one signup, a reused key none', async () => {
    const limited = await startTestServer({ signupsPerAddressPerMinute: 2 });
    try {
      const signup = (key: string, name: string) =>
        limited.request('POST', '/v1/auth/signup', {
          body: { email: `${name.toLowerCase()}-${process.pid}@example.test`, password: 'correct horse battery', name },
          headers: { 'idempotency-key': key },
        });
      const key = freshKey();
      expect((await signup(key, 'Once')).status).toBe(201);
      for (let n = 0; n < 3; n++) expect((await signup(key, 'Once')).headers.get('idempotent-replayed')).toBe('true');
      // The key sent with another request is refused by the key alone, which ran nothing either.
      expectError(await signup(key, 'Other'), 422, 'idempotency_key_reused');
      expect((await signup(freshKey(), 'Twice')).status).toBe(201);
      expectError(await signup(freshKey(), 'Thrice'), 429, 'rate_limited');
    } finally {
      await limited.close();
    }
  });

  it('keeps neither the raw key, nor a token it answered, nor a fast hash of a password in the table', async () => {
    const key = freshKey();
    const password = 'correct horse battery';
    const body = { email: `sealed-${process.pid}-${keys}@example.test`, password, name: 'Sealed' };
    const first = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const { idempotencyKeys } = t.tables;
    const [row] = await t.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, stored(key)));
    expect(row).toBeDefined();
    const everything = JSON.stringify(row) + Buffer.from(row!.body!).toString('latin1');
    for (const secret of [
      key,
      first.body.token,
      password,
      createHash('sha256')
        .update(`POST /v1/auth/signup\n${JSON.stringify(body)}`)
        .digest('base64url'),
    ]) {
      expect(everything).not.toContain(secret);
    }
    // The replay still opens it, with the key.
    const again = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.body.token).toBe(first.body.token);
  });

  it('honours the key of a route without a token when a stale or unknown token comes along: a retried guest join is one guest', async () => {
    const { token: loggedOut } = await createUser(t, 'Gone');
    expect((await t.request('POST', '/v1/auth/logout', { token: loggedOut })).status).toBe(204);
    const code = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
        token: facilitator.token,
      })
    ).body.access_code;
    const { users } = t.tables;
    for (const stale of ['Bearer not-a-token-at-all', `Bearer ${loggedOut}`, 'Basic d2hvOmV2ZXI=']) {
      const key = freshKey();
      const name = `Retried ${keys}`;
      const join = () =>
        t.request<{ token: string; user: { id: string } }>('POST', '/v1/workshops/join/guest', {
          body: { access_code: code, name },
          headers: { 'idempotency-key': key, authorization: stale },
        });
      const first = await join();
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const again = await join();
      expect([stale, again.status, again.headers.get('idempotent-replayed')]).toEqual([stale, 201, 'true']);
      expect(again.body.user.id).toBe(first.body.user.id);
      expect(await t.db.select({ id: users.id }).from(users).where(eq(users.name, name))).toHaveLength(1);
    }
    // A signup and a login likewise: one account, the same session answered again.
    const key = freshKey();
    const body = {
      email: `stale-${process.pid}-${keys}@example.test`,
      password: 'correct horse battery',
      name: 'Stale',
    };
    const signup = () =>
      t.request<{ token: string }>('POST', '/v1/auth/signup', {
        body,
        headers: { 'idempotency-key': key, authorization: `Bearer ${loggedOut}` },
      });
    const first = await signup();
    expect(first.status).toBe(201);
    const again = await signup();
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.token]).toEqual([
      201,
      'true',
      first.body.token,
    ]);
    const loginKey = freshKey();
    const login = () =>
      t.request<{ token: string }>('POST', '/v1/auth/login', {
        body: { email: body.email, password: body.password },
        headers: { 'idempotency-key': loginKey, authorization: 'Bearer stale' },
      });
    const session = await login();
    expect(session.status).toBe(200);
    expect((await login()).body.token).toBe(session.body.token);
  });

  it("keys a signup sent with a guest's token to that guest: the same key and body without it is another request", async () => {
    const code = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
        token: facilitator.token,
      })
    ).body.access_code;
    const guest = (
      await t.request<{ token: string; user: { id: string } }>('POST', '/v1/workshops/join/guest', {
        body: { access_code: code, name: 'Upgrading' },
      })
    ).body;
    const key = freshKey();
    const body = {
      email: `upgrade-${process.pid}-${keys}@example.test`,
      password: 'correct horse battery',
      name: 'Upgraded',
    };
    const first = await t.request<{ token: string; user: { id: string } }>('POST', '/v1/auth/signup', {
      token: guest.token,
      body,
      headers: { 'idempotency-key': key },
    });
    expect([first.status, first.body.user.id]).toEqual([201, guest.user.id]);
    const again = await t.request<{ token: string }>('POST', '/v1/auth/signup', {
      token: guest.token,
      body,
      headers: { 'idempotency-key': key },
    });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.token]).toEqual([
      201,
      'true',
      first.body.token,
    ]);
    // The key belongs to the guest: sent by anyone else it runs, and the address is taken.
    expectError(
      await t.request('POST', '/v1/auth/signup', { body, headers: { 'idempotency-key': key } }),
      409,
      'email_taken',
    );
  });

  it('keeps nothing for a request without a token on a route that needs one (it is 401)', async () => {
    const key = freshKey();
    const res = await t.request('POST', `/v1/workshops/${workshopId}/cards`, {
      body: { type: 'cluster', title: 'Anonymous' },
      headers: { 'idempotency-key': key },
    });
    expectError(res, 401, 'unauthenticated');
    const { idempotencyKeys } = t.tables;
    expect(
      await t.db
        .select()
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.key, stored(key))),
    ).toEqual([]);
  });

  it('keys without a token exactly the writes the OpenAPI document says need none', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const publicWrites = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(
          ([method, op]) =>
            method !== 'get' && path.startsWith('/v1/') && Array.isArray(op.security) && op.security.length === 0,
        )
        .map(() => path),
    );
    expect([...WITHOUT_TOKEN].sort()).toEqual(publicWrites.sort());
    // Each takes its keys in its own chain (after its limits): a repeat is replayed on every one.
    for (const path of WITHOUT_TOKEN) {
      const key = freshKey();
      const first = await t.request('POST', path, { body: {}, headers: { 'idempotency-key': key } });
      expectError(first, 400, 'invalid_request');
      const again = await t.request('POST', path, { body: {}, headers: { 'idempotency-key': key } });
      expect([path, again.status, again.headers.get('idempotent-replayed')]).toEqual([path, 400, 'true']);
    }
  });

  it('refuses a key that is empty, too long or not visible ASCII with 400, and ignores it on reads', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space', 'accentué']) {
      const res = await t.request('POST', `/v1/workshops/${workshopId}/cards`, {
        token: participant.token,
        body: { type: 'idea', title: 'Bad key', parent: clusterId },
        headers: { 'idempotency-key': key },
      });
      expectError(res, 400, 'invalid_request');
    }
    expect((await addIdea('x'.repeat(255), 'Longest key')).status).toBe(201);
    expect(await ideasTitled('Bad key')).toBe(0);
    const read = await t.request('GET', `/v1/workshops/${workshopId}`, {
      token: participant.token,
      headers: { 'idempotency-key': '' },
    });
    expect(read.status).toBe(200);
  });

  it('runs a key again once its answer expired, and the sweep deletes expired keys', async () => {
    const key = freshKey();
    expect((await addIdea(key, 'Expiring idea')).status).toBe(201);
    const { idempotencyKeys } = t.tables;
    await t.write(async (tx) => {
      await tx
        .update(idempotencyKeys)
        .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
        .where(eq(idempotencyKeys.key, stored(key)));
    });
    const later = await addIdea(key, 'Expiring idea');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await ideasTitled('Expiring idea')).toBe(2);

    const inADay = new Date(Date.now() + KEPT_MS + 60_000);
    expect(await sweepExpiredKeys(t.deps.database, inADay)).toBeGreaterThan(0);
    const [counted] = await t.rows<{ n: number | string }>(sql`select count(*) as n from idempotency_keys`);
    expect(Number(counted!.n)).toBe(0);
  });

  it('lets a retry run when the first request stopped holding its key (its instance died)', async () => {
    const key = freshKey();
    await t.write(async (tx, { idempotencyKeys }) => {
      await tx.insert(idempotencyKeys).values({
        owner: participant.id,
        key: stored(key),
        fingerprint: 'of a request that never finished',
        lockedUntil: new Date(Date.now() + HELD_MS).toISOString(),
        expiresAt: new Date(Date.now() + KEPT_MS).toISOString(),
      });
    });
    // Another body while held is a reuse; a held key with the same request is "in use".
    expectError(await addIdea(key, 'Orphaned'), 422, 'idempotency_key_reused');
    await t.write(async (tx, { idempotencyKeys }) => {
      await tx
        .update(idempotencyKeys)
        .set({ lockedUntil: new Date(Date.now() - 1).toISOString() })
        .where(eq(idempotencyKeys.key, stored(key)));
    });
    // Its fingerprint is not this request's: still a reuse, even once free. Same request: taken over.
    expectError(await addIdea(key, 'Orphaned'), 422, 'idempotency_key_reused');

    const inUse = freshKey();
    const first = await addIdea(inUse, 'Taken over');
    expect(first.status).toBe(201);
    await t.write(async (tx, { idempotencyKeys }) => {
      await tx
        .update(idempotencyKeys)
        .set({ status: null, body: null, lockedUntil: new Date(Date.now() + HELD_MS).toISOString() })
        .where(eq(idempotencyKeys.key, stored(inUse)));
    });
    const held = await addIdea(inUse, 'Taken over');
    expectError(held, 409, 'idempotency_key_in_use');
    expect(held.headers.get('retry-after')).toBe('1');
    await t.write(async (tx, { idempotencyKeys }) => {
      await tx
        .update(idempotencyKeys)
        .set({ lockedUntil: new Date(Date.now() - 1).toISOString() })
        .where(eq(idempotencyKeys.key, stored(inUse)));
    });
    const takenOver = await addIdea(inUse, 'Taken over');
    expect(takenOver.status).toBe(201);
    expect(await ideasTitled('Taken over')).toBe(2);
  });

  it('holds across instances on one database', async () => {
    const second = await startTestServer({}, { shareDatabaseOf: t });
    try {
      const key = freshKey();
      expect((await addIdea(key, 'Across instances')).status).toBe(201);
      const there = await second.request('POST', `/v1/workshops/${workshopId}/cards`, {
        token: participant.token,
        body: { type: 'idea', title: 'Across instances', parent: clusterId },
        headers: { 'idempotency-key': key },
      });
      expect(there.status).toBe(201);
      expect(there.headers.get('idempotent-replayed')).toBe('true');
      expect(await ideasTitled('Across instances')).toBe(1);
    } finally {
      await second.close();
    }
  });
});
