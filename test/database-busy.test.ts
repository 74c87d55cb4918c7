import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, expectError, seedWorkshop, type TestUser } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';

/* Another instance (here: another connection) holding the write lock must not turn into a 500. */

let t: TestServer;
let user: TestUser;
beforeAll(async () => {
  t = await startTestServer();
  user = await createUser(t, 'Lockless');
});
afterAll(() => t.close());

describe('a write lock held elsewhere', () => {
  it('answers 503 with Retry-After after a short wait, writes nothing, and reads go on', async () => {
    const workshop = seedWorkshop(t, user);
    const other = new Database(t.deps.config.databasePath);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const res = await t.request('POST', `/v1/workshops/${workshop.id}/cards`, { token: user.token, body: { type: 'cluster', title: 'Blocked' } });
      expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(Date.now() - started).toBeLessThan(4_000);
      expect((await t.request('GET', '/health')).status).toBe(200);
      expect((await t.request('GET', `/v1/workshops/${workshop.id}/cards`, { token: user.token })).body).toEqual([]);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const res = await t.request('POST', `/v1/workshops/${workshop.id}/cards`, { token: user.token, body: { type: 'cluster', title: 'Free' } });
    expect(res.status).toBe(201);
  });
});
