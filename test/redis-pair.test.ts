import { describe, expect, it } from 'vitest';
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
});
