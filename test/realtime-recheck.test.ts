import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, seedMember, seedWorkshop, type TestUser } from './helpers/factories';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { startTestServer, type TestServer } from './helpers/server';
import { joinedClient, type LiveClient } from './helpers/sockets';

/*
 * Live sockets are checked against the database again: periodically, and on every instance once
 * Redis is back, so a logout or a lost membership that could not travel still ends the feed.
 */

const open: LiveClient[] = [];
afterAll(() => {
  for (const client of open) client.close();
});
async function joined(server: TestServer, user: TestUser, workshopId: string) {
  const client = await joinedClient(server.url, user.token, workshopId);
  open.push(client);
  return client;
}
const disconnected = (client: LiveClient) => new Promise<string>((resolve) => client.socket.once('disconnect', (reason) => resolve(reason)));

describe('periodic re-check', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ liveRecheckMs: 100 });
  });
  afterAll(() => t.close());

  it('disconnects a socket whose token was revoked where this instance could not hear of it', async () => {
    const user = await createUser(t, 'Revoked');
    const client = await joined(t, user, seedWorkshop(t, user).id);
    const gone = disconnected(client);
    // As a logout on another instance leaves it: the token row gone, no event here.
    t.deps.database.sqlite.prepare('DELETE FROM auth_tokens WHERE user_id = ?').run(user.id);
    expect(await gone).toBe('io server disconnect');
  });

  it('takes a socket out of a workshop whose membership was removed behind its back', async () => {
    const owner = await createUser(t, 'Owner');
    const member = await createUser(t, 'Member');
    const workshop = seedWorkshop(t, owner);
    seedMember(t, workshop.id, member);
    await joined(t, member, workshop.id);
    const inRoom = async () => (await t.server.realtime.io.local.in(`workshop:${workshop.id}`).fetchSockets()).some((s) => s.data.user.id === member.id);
    expect(await inRoom()).toBe(true);
    t.deps.database.sqlite.prepare('DELETE FROM workshop_members WHERE workshop_id = ? AND user_id = ?').run(workshop.id, member.id);
    const deadline = Date.now() + 5_000;
    while ((await inRoom()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await inRoom()).toBe(false);
  });
});

describe.skipIf(!redisAvailable)('re-check after a Redis outage', () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    // Periodic checks far apart: what ends the socket here is the re-check on reconnect.
    a = await startTestServer({ redisUrl: redis.url, liveRecheckMs: 3_600_000 });
    b = await startTestServer({ redisUrl: redis.url, liveRecheckMs: 3_600_000 }, { shareDatabaseOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  it('ends, once Redis is back, the feed of a token logged out on the other instance during the outage', async () => {
    const user = await createUser(a, 'Lou');
    const workshop = seedWorkshop(a, user);
    const onB = await joined(b, user, workshop.id);
    await redis.stop();
    expect((await a.request('POST', '/v1/auth/logout', { token: user.token })).status).toBe(204);
    // The revocation could not cross: B's socket is still there.
    expect(onB.socket.connected).toBe(true);
    const gone = disconnected(onB);
    await redis.start();
    expect(await gone).toBe('io server disconnect');
  });
});
