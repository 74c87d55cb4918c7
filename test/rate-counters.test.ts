import { randomBytes } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addToCounter, databaseLimiters, readCounter, sweepCounters } from '../src/db/rate-counters';
import { openStore } from '../src/db/store';
import { useServer } from './helpers/cast';

/* The `rate_limits` table the limits count in when instances share no Redis, on the run's store. */

const key = () => `test:${randomBytes(6).toString('hex')}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('database counters', () => {
  const t = useServer();
  const database = () => t.deps.database;

  it('add up within a window, and start again once it has ended', async () => {
    const k = key();
    expect((await addToCounter(database(), k, 2, 200)).points).toBe(2);
    const second = await addToCounter(database(), k, 3, 60_000);
    // The window is the first count's: a later count does not stretch it.
    expect(second.points).toBe(5);
    expect(Date.parse(second.expiresAt)).toBeLessThanOrEqual(Date.now() + 200);
    await pause(250);
    const fresh = await addToCounter(database(), k, 1, 60_000);
    expect(fresh.points).toBe(1);
    expect(Date.parse(fresh.expiresAt)).toBeGreaterThan(Date.now() + 50_000);
  });

  it('are read without counting, in their window only', async () => {
    const k = key();
    expect(await readCounter(database(), k)).toBeUndefined();
    await addToCounter(database(), k, 2, 200);
    expect(await readCounter(database(), k)).toMatchObject({ points: 2 });
    expect(await readCounter(database(), k)).toMatchObject({ points: 2 });
    await pause(250);
    // The window ended: nothing counted in the current one.
    expect(await readCounter(database(), k)).toBeUndefined();
  });

  it('make a limiter that refuses once the budget is spent, and takes back what it gave back', async () => {
    const limiters = databaseLimiters(database());
    try {
      const limiter = limiters.limiter({ name: `give-${randomBytes(4).toString('hex')}`, points: 2, windowS: 60 });
      // Taken and given back, five times: nothing spent.
      for (let n = 0; n < 5; n++) {
        expect(await limiter.take('someone')).toBeNull();
        await limiter.giveBack('someone');
      }
      expect(await limiter.take('someone')).toBeNull();
      expect(await limiter.take('someone')).toBeNull();
      const wait = await limiter.take('someone');
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      expect(await limiter.take('someone else')).toBeNull();
      // Never below nothing: giving back more than was taken leaves the counter at zero.
      for (let n = 0; n < 3; n++) await limiter.giveBack('someone else');
      for (let n = 0; n < 2; n++) expect(await limiter.take('someone else')).toBeNull();
      expect(await limiter.take('someone else')).toBeGreaterThan(0);
    } finally {
      limiters.close();
    }
  });

  it('are swept once their window has ended', async () => {
    const [ended, running] = [key(), key()];
    await addToCounter(database(), ended, 1, 50);
    await addToCounter(database(), running, 1, 60_000);
    await pause(100);
    await sweepCounters(database());
    const { rateLimits } = t.tables;
    const left = await t.db
      .select({ key: rateLimits.key })
      .from(rateLimits)
      .where(inArray(rateLimits.key, [ended, running]));
    expect(left.map((row) => row.key)).toEqual([running]);
  });

  it('leave a limiter counting on its own instance while the database cannot be reached', async () => {
    const away = await openStore(t.deps.config);
    await away.close();
    const limiters = databaseLimiters(away);
    const limiter = limiters.limiter({ name: 'outage', points: 3, windowS: 60 });
    const answers = [];
    for (let n = 0; n < 4; n++) answers.push(await limiter.take('someone'));
    expect(answers.slice(0, 3)).toEqual([null, null, null]);
    expect(answers[3]).toBeGreaterThan(0);
    await limiter.giveBack('someone');
    await limiter.giveBack('someone');
    expect(await limiter.take('someone')).toBeNull();
    limiters.close();
  });
});
