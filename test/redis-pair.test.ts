import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisLimiters } from '../src/lib/limiters';
import { connectRedisPair } from '../src/lib/redis-pair';
import { useRedis } from './helpers/cast';
import { redisAvailable } from './helpers/redis';
import { until } from './helpers/wait';

/* The Redis connection pair under the Socket.IO adapter and the Yjs fan-out. */

describe.skipIf(!redisAvailable)('a Redis connection pair', () => {
  const redis = useRedis();

  it('turns commands cut off by an outage or by disconnect into logged faults, not unhandled rejections', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const logs: string[] = [];
    const pair = connectRedisPair(redis.url, { label: 'test', log: (line) => logs.push(line) });
    try {
      await until(() => pair.healthy(), 'both connections up');
      await redis.stop();
      await until(() => !pair.healthy(), 'the outage noticed');
      // As the Socket.IO adapter does on close: (un)subscribe and publish without awaiting. The
      // subscriber queues its commands for the reconnect; disconnect() then cuts them off.
      void pair.sub.unsubscribe('workshops#a');
      void pair.sub.punsubscribe('workshops#*');
      void pair.pub.publish('workshops#a', 'x');
      pair.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      expect(logs.some((line) => line.includes('unreachable'))).toBe(true);
    } finally {
      process.off('unhandledRejection', record);
      pair.disconnect();
      await redis.start();
    }
  });

  it('counts the limits in memory, long before Redis answers again, while it holds the connection without answering', async () => {
    const limiters = redisLimiters(redis.url);
    const blocker = new Redis(redis.url);
    const killer = new Redis(redis.url);
    // Past this, Redis answers BUSY to everyone and takes a SCRIPT KILL; until then it answers nobody.
    await killer.ping();
    await blocker.config('SET', 'busy-reply-threshold', '4000');
    const limiter = limiters.limiter({ name: `unanswered-${Date.now()}`, points: 5, windowS: 60 });
    try {
      await until(() => limiters.redisUp() === true, 'the limits connection up');
      expect(await limiter.take('someone')).toBeNull();
      // A script that never ends holds Redis: connections stay open, commands get no answer.
      void blocker.eval('while true do end', 0).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      expect(await limiter.take('someone')).toBeNull();
      // Without a command timeout the take would wait for Redis to answer BUSY, 4 s on.
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      // Made before the script runs: a connection opened meanwhile would wait on its own handshake.
      await killer.script('KILL').catch(() => {});
      // The script ends a moment after the kill is answered: until then Redis answers BUSY.
      await until(
        () =>
          killer.config('SET', 'busy-reply-threshold', '5000').then(
            () => true,
            () => false,
          ),
        'Redis answering again',
        5_000,
        50,
      );
      killer.disconnect();
      blocker.disconnect();
      limiters.close();
    }
  });
});
