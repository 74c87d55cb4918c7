import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRedis, useInstances } from './helpers/cast';
import { createUser, expectError } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { until } from './helpers/wait';

/* With Redis, an attempt budget is one budget across instances; without it, each instance counts. */

describe.skipIf(!redisAvailable)('attempt limits across two instances', () => {
  const redis = useRedis();
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url, joinAttemptsPerMinute: 3 }));

  const wrongCode = (server: TestServer, token: string) =>
    server.request('POST', '/v1/workshops/join', { token, body: { access_code: '000-000-000' } });

  it('counts wrong codes made on either instance against one budget', async () => {
    const guesser = await createUser(a, 'Guesser');
    expect((await wrongCode(a, guesser.token)).status).toBe(404);
    expect((await wrongCode(b, guesser.token)).status).toBe(404);
    expect((await wrongCode(a, guesser.token)).status).toBe(404);
    const refused = await wrongCode(b, guesser.token);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  afterEach(() => vi.restoreAllMocks());

  it('keeps limiting per instance, without failing requests, while Redis is away, and says so in the log', async () => {
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const logged = (text: string) =>
      warnings.mock.calls.some(([line]) => String(line).startsWith('[limits]') && String(line).includes(text));
    const guesser = await createUser(a, 'Patient');
    await redis.stop();
    try {
      for (let n = 0; n < 3; n++) expect((await wrongCode(a, guesser.token)).status).toBe(404);
      expectError(await wrongCode(a, guesser.token), 429, 'rate_limited');
      expect(logged('unreachable')).toBe(true);
    } finally {
      await redis.start();
    }
    await until(() => logged('reachable again'), "the limits' connection back", 10_000);
  });
});
