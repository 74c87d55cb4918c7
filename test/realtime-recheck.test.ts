import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { Presence } from '../src/realtime/presence';
import { recheckLocalSockets } from '../src/realtime/recheck';
import { useRedis, useServer, useSockets, useInstances } from './helpers/cast';
import { createUser, seedMember, seedWorkshop, type TestUser } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import type { LiveClient } from './helpers/sockets';
import { until } from './helpers/wait';
import { syncedDoc } from './helpers/collab';

/*
 * Live sockets are checked against the database again: periodically, and on every instance once
 * Redis is back, so a logout or a lost membership that could not travel still ends the feed.
 */

const disconnected = (client: LiveClient) =>
  new Promise<string>((resolve) => client.socket.once('disconnect', (reason) => resolve(reason)));

describe('periodic re-check', () => {
  const t = useServer({ liveRecheckMs: 100 });
  const sockets = useSockets(t);
  const joined = (server: TestServer, user: TestUser, workshopId: string) => sockets.joined(user, workshopId, server);

  it('disconnects a socket whose token was revoked where this instance could not hear of it', async () => {
    const user = await createUser(t, 'Revoked');
    const client = await joined(t, user, (await seedWorkshop(t, user)).id);
    const gone = disconnected(client);
    // As a logout on another instance leaves it: the token row gone, no event here.
    await t.write(sql`DELETE FROM auth_tokens WHERE user_id = ${user.id}`);
    expect(await gone).toBe('io server disconnect');
  });

  it('takes a socket out of a workshop whose membership was removed behind its back', async () => {
    const owner = await createUser(t, 'Owner');
    const member = await createUser(t, 'Member');
    const workshop = await seedWorkshop(t, owner);
    await seedMember(t, workshop.id, member);
    await joined(t, member, workshop.id);
    const inRoom = async () =>
      (await t.server.realtime.io.local.in(`workshop:${workshop.id}`).fetchSockets()).some(
        (s) => s.data.user.id === member.id,
      );
    expect(await inRoom()).toBe(true);
    await t.write(sql`DELETE FROM workshop_members WHERE workshop_id = ${workshop.id} AND user_id = ${member.id}`);
    await until(async () => !(await inRoom()), "the member out of the workshop's room");
    expect(await inRoom()).toBe(false);
  });

  it('takes a password session out of a workshop whose organization came to require single sign-on', async () => {
    const admin = await createUser(t, 'Admin');
    const organization = (
      await t.request<{ id: string }>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
    ).body;
    const workshop = (
      await t.request<{ id: string }>('POST', `/v1/organizations/${organization.id}/workshops`, {
        token: admin.token,
        body: { title: 'Soon behind SSO' },
      })
    ).body;
    await joined(t, admin, workshop.id);
    const inRoom = async () =>
      (await t.server.realtime.io.local.in(`workshop:${workshop.id}`).fetchSockets()).some(
        (s) => s.data.user.id === admin.id,
      );
    expect(await inRoom()).toBe(true);
    // As set where no provider is configured in this test: the row itself.
    const doc = await syncedDoc(t, workshop.id, admin.token);
    try {
      await t.write(sql`UPDATE organizations SET sso_required = true WHERE id = ${organization.id}`);
      await until(async () => !(await inRoom()), "the password session out of the workshop's room");
      // The sync endpoint checks its connections again when a user's access may have changed.
      t.deps.bus.emit('access-changed', { userId: admin.id });
      await until(() => doc.closes.some((close) => close.code === 4403), 'the sync connection closed with 4403');
    } finally {
      doc.destroy();
    }
  });

  it('asks once about a token however many sockets share it, and moves only the sockets whose rooms are wrong', async () => {
    const owner = await createUser(t, 'Host');
    const member = await createUser(t, 'Tabs');
    const workshops = [await seedWorkshop(t, owner), await seedWorkshop(t, owner)];
    for (const workshop of workshops) await seedMember(t, workshop.id, member);
    for (let tab = 0; tab < 3; tab++) for (const workshop of workshops) await joined(t, member, workshop.id);
    const { io } = t.server.realtime;
    const asked: string[] = [];
    const counting = {
      ...t.deps.auth,
      isAlive: async (tokenHash: string) => (asked.push(tokenHash), t.deps.auth.isAlive(tokenHash)),
    };
    const moves: string[] = [];
    const local = io.local;
    const watched = vi
      .spyOn(io, 'in')
      .mockImplementation((room) => (moves.push(String(room)), local.in(room)) as ReturnType<typeof io.in>);
    const presence = new Presence(io, () => true, t.deps.database);
    try {
      await recheckLocalSockets(t.deps, io, presence, counting);
    } finally {
      watched.mockRestore();
      presence.close();
    }
    // Six sockets share the member's token (other tests' sockets are checked too): each token once.
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked).size).toBe(asked.length);
    // Every socket was in the rooms its role gives: no member's sockets moved (presence counts go through `in` too).
    expect(moves.filter((room) => room.includes(':user:'))).toEqual([]);
  });
});

describe.skipIf(!redisAvailable)('re-check after a Redis outage', () => {
  const redis = useRedis();
  // Periodic checks far apart: what ends the socket here is the re-check on reconnect.
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url, liveRecheckMs: 3_600_000 }));
  const sockets = useSockets(a);
  const joined = (server: TestServer, user: TestUser, workshopId: string) => sockets.joined(user, workshopId, server);

  it('ends, once Redis is back, the feed of a token logged out on the other instance during the outage', async () => {
    const user = await createUser(a, 'Lou');
    const workshop = await seedWorkshop(a, user);
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
