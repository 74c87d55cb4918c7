import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { Readiness } from '../src/ops/readiness';
import { useServer } from './helpers/cast';
import { createUser, errorOf, expectError, seedWorkshop } from './helpers/factories';
import { connectSocket } from './helpers/sockets';

/*
 * `GET /ready` tells a load balancer whether to send this instance traffic
 * (docs/operations.md#health-readiness-and-stopping); `GET /health` stays the liveness check,
 * unchanged.
 */

describe('GET /ready', () => {
  const t = useServer();

  it('answers 200 once the server is up and its database answers', async () => {
    const res = await t.request('GET', '/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
    expect(t.deps.readiness.phase).toBe('serving');
  });

  it('answers 503 while the instance is starting', async () => {
    // The same app before `createServer` marked it serving.
    const app = createApp({ ...t.deps, readiness: new Readiness(t.deps.database) });
    const res = await app.request('/ready');
    const body = await res.json();
    expectError({ status: res.status, body }, 503, 'service_unavailable');
    expect(errorOf({ body }).message).toMatch(/starting/);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('answers 503 for good once draining, while /health stays 200', async () => {
    t.deps.readiness.markDraining();
    const res = await t.request('GET', '/ready');
    expectError(res, 503, 'service_unavailable');
    expect(errorOf(res).message).toMatch(/shutting down/);
    expect(res.headers.get('retry-after')).toBe('1');
    // A late "serving" (a slow start finishing) does not undo it.
    t.deps.readiness.markServing();
    expectError(await t.request('GET', '/ready'), 503, 'service_unavailable');
    expect((await t.request('GET', '/health')).status).toBe(200);
  });
});

describe('GET /ready without a database', () => {
  const t = useServer();

  it('answers 503 once the database cannot be reached, as /health does', async () => {
    expect((await t.request('GET', '/ready')).status).toBe(200);
    await t.deps.database.close();
    const res = await t.request('GET', '/ready');
    expectError(res, 503, 'service_unavailable');
    expect(errorOf(res).message).toMatch(/database/);
    expect((await t.request('GET', '/health')).status).toBe(503);
  });
});

describe('Readiness', () => {
  it('names a dependency that cannot be reached, and forgets it when told', async () => {
    const readiness = new Readiness({ answers: async () => true });
    readiness.markServing();
    let reachable = false;
    const forget = readiness.dependOn('Redis', () => reachable);
    expect(await readiness.problem()).toBe('Redis cannot be reached.');
    reachable = true;
    expect(await readiness.problem()).toBeNull();
    reachable = false;
    forget();
    expect(await readiness.problem()).toBeNull();
  });
});

describe('a Socket.IO join without a database', () => {
  const t = useServer();

  it('answers service_unavailable with a wait, as REST answers 503, never internal_error', async () => {
    const user = await createUser(t, 'Joiner');
    const workshop = await seedWorkshop(t, user);
    const client = await connectSocket(t.url, user.token);
    try {
      await t.deps.database.close();
      expect(await client.join(workshop.id)).toEqual({
        ok: false,
        error: { code: 'service_unavailable', message: expect.any(String), retry_after: 1 },
      });
    } finally {
      client.close();
    }
  });
});
