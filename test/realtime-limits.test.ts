import { describe, expect, it } from 'vitest';
import { useServer, useSockets, useUsers } from './helpers/cast';
import type { JoinAck } from '../src/realtime/events';
import { createUser, seedEvent, seedWorkshop, type TestUser } from './helpers/factories';

/* A client replaying joins in a loop must not be able to hold the server. */

const t = useServer();
const [user] = useUsers(t, 'Looper');
const sockets = useSockets(t);
const connected = () => sockets.connected(user);

/** A workshop whose log holds `count` events. */
async function workshopWithEvents(count: number, owner: TestUser = user) {
  const workshop = await seedWorkshop(t, owner);
  for (let n = 1; n <= count; n++) await seedEvent(t, workshop.id, 'addStep', owner.id, { step: { id: `s${n}` } });
  return workshop;
}

describe('join limits', () => {
  it('refuses an eleventh join from one socket within ten seconds, saying when to retry', async () => {
    const workshop = await seedWorkshop(t, user);
    const client = await connected();
    const acks = await Promise.all(Array.from({ length: 12 }, () => client.join(workshop.id)));
    expect(acks.filter((ack) => ack.ok)).toHaveLength(10);
    const refused = acks.filter((ack) => !ack.ok);
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ ok: false, error: { code: 'rate_limited', retry_after: expect.any(Number) } });
    // Another socket of the same user has its own joins.
    expect(await (await connected()).join(workshop.id)).toMatchObject({ ok: true });
  });

  it('limits a user’s joins whatever their sockets: a new socket per join gains nothing', async () => {
    const looper = await createUser(t, 'Reconnecting looper');
    const workshop = await seedWorkshop(t, looper);
    const acks: JoinAck[] = [];
    for (let n = 0; n < 7; n++) {
      const client = await sockets.connected(looper);
      acks.push(...(await Promise.all(Array.from({ length: 10 }, () => client.join(workshop.id)))));
    }
    expect(acks.filter((ack) => ack.ok)).toHaveLength(60);
    expect(acks.filter((ack) => !ack.ok).every((ack) => !ack.ok && ack.error.code === 'rate_limited')).toBe(true);
  });

  it('replays at most five full gaps a minute per user, then answers reload without replaying', async () => {
    const workshop = await workshopWithEvents(500);
    const replays: Array<{ ack: unknown; received: number }> = [];
    for (let n = 0; n < 6; n++) {
      const client = await connected();
      const ack = await client.join(workshop.id, 0);
      replays.push({ ack, received: client.all('workshop:event').length });
    }
    for (const replay of replays.slice(0, 5))
      expect(replay).toEqual({ ack: { ok: true, seq: 500, replayed: 500 }, received: 500 });
    expect(replays[5]).toEqual({ ack: { ok: true, seq: 500, reload: true }, received: 0 });
  });

  it('charges nothing for a gap too large to replay: the client reloads over REST anyway', async () => {
    const resumer = await createUser(t, 'Long-gone resumer');
    const tooFar = await workshopWithEvents(501, resumer);
    for (let n = 0; n < 5; n++)
      expect(await (await sockets.connected(resumer)).join(tooFar.id, 0)).toEqual({ ok: true, seq: 501, reload: true });
    const small = await workshopWithEvents(10, resumer);
    expect(await (await sockets.connected(resumer)).join(small.id, 0)).toEqual({ ok: true, seq: 10, replayed: 10 });
  });
});
