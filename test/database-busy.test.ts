import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useServer, useUsers } from './helpers/cast';
import { expectError, seedWorkshop } from './helpers/factories';
import { holdWriteLock } from './helpers/locks';

/*
 * Another instance (here: another connection) holding the lock a write needs must not turn into a
 * 500 or a hang: SQLite's write lock, or on PostgreSQL the workshop's row, which every write to
 * the workshop locks first.
 */

const t = useServer();
const [user] = useUsers(t, 'Lockless');

describe('a lock held elsewhere', () => {
  it('answers 503 with Retry-After after a short wait, writes nothing, and reads go on', async () => {
    const workshop = await seedWorkshop(t, user);
    const held = await holdWriteLock(t, { table: 'workshops', column: 'id', value: workshop.id });
    try {
      const started = Date.now();
      const res = await t.request('POST', `/v1/workshops/${workshop.id}/cards`, {
        token: user.token,
        body: { type: 'cluster', title: 'Blocked' },
      });
      expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(Date.now() - started).toBeLessThan(4_000);
      expect((await t.request('GET', '/health')).status).toBe(200);
      expect((await t.request('GET', `/v1/workshops/${workshop.id}/cards`, { token: user.token })).body).toEqual([]);
    } finally {
      await held.release();
    }
    // Nothing of the refused write was kept: no card, no event, no card number spent.
    const { workshops } = t.tables;
    const [row] = await t.db.select().from(workshops).where(eq(workshops.id, workshop.id));
    expect(row).toMatchObject({ lastCardNumber: 0, lastEventSeq: 0 });
    const res = await t.request('POST', `/v1/workshops/${workshop.id}/cards`, {
      token: user.token,
      body: { type: 'cluster', title: 'Free' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ short_id: '1' });
  });
});
