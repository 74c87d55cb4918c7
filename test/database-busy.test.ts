import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useServer, useUsers } from './helpers/cast';
import { expectError, seedWorkshop } from './helpers/factories';

/* Another instance (here: another connection) holding the write lock must not turn into a 500. */

const t = useServer();
const [user] = useUsers(t, 'Lockless');

describe('a write lock held elsewhere', () => {
  it('answers 503 with Retry-After after a short wait, writes nothing, and reads go on', async () => {
    const workshop = await seedWorkshop(t, user);
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
