import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { workshopRoom } from '../src/realtime/rooms';
import { eventLog, seedCard, seedCurrentStep, seedEvent, type TestUser, seedWorkshopWith } from './helpers/factories';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { connectSocket, joinedClient } from './helpers/sockets';

/**
 * Counts the statements reading a member's access (`findAccess`), on either store, from now until
 * `stop`: the server runs in this process, so its driver's calls are seen here.
 */
function accessReads() {
  const isAccessRead = (text: unknown) =>
    typeof text === 'string' && /left join "workshop_members".*left join "steps"/s.test(text);
  let count = 0;
  const restore: Array<() => void> = [];
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as {
    all: (...args: unknown[]) => unknown;
    source: string;
  };
  const all = statement.all;
  statement.all = function (this: typeof statement, ...args: unknown[]) {
    if (isAccessRead(this.source)) count += 1;
    return all.apply(this, args);
  };
  restore.push(() => (statement.all = all));
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be restored, and called with its `this`
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config] = args;
    if (isAccessRead(typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text))
      count += 1;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  restore.push(() => (pg.Client.prototype.query = query as typeof pg.Client.prototype.query));
  return { count: () => count, stop: () => restore.forEach((undo) => undo()) };
}

const t = useServer();
const [facilitator, participant, other] = useUsers(t, 'Fay', 'Pat', 'Otto');
const sockets = useSockets(t);

async function scene() {
  const workshop = await seedWorkshopWith(t, facilitator, [participant, other]);
  const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster', title: 'Cluster' });
  return { workshop, cluster };
}

const api = async (method: string, path: string, user: TestUser, body?: unknown) => {
  const res = await t.request(method, path, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};

/** Three different changes: a card, a vote and a comment. */
async function threeChanges(workshopId: string, clusterId: string) {
  const card = await api('POST', `/v1/workshops/${workshopId}/cards`, participant, {
    type: 'idea',
    parent: clusterId,
    title: 'While away',
  });
  await api('POST', `/v1/workshops/${workshopId}/cards/${clusterId}/votes`, other, { value: 1 });
  await api('POST', `/v1/workshops/${workshopId}/cards/${clusterId}/comments`, other, { content: 'Missed this?' });
  return card;
}

describe('resuming with since_seq', () => {
  it('replays exactly the missed events, in order, before the ack', async () => {
    const { workshop: w, cluster } = await scene();
    const first = await joinedClient(t.url, participant.token, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Seen' });
    const seen = (await first.next('workshop:updated')).seq;
    first.close();

    const card = await threeChanges(w.id, cluster.id);
    const again = await connectSocket(t.url, participant.token);
    sockets.track(again);
    const ack = await again.join(w.id, seen);
    expect(ack).toEqual({ ok: true, seq: seen + 3, replayed: 3 });
    expect(again.received.filter((r) => r.event !== 'presence')).toEqual([
      { event: 'card:created', payload: { seq: seen + 1, workshop_id: w.id, card } },
      { event: 'score:changed', payload: { seq: seen + 2, workshop_id: w.id, card_id: cluster.id, score: 1 } },
      {
        event: 'comment:created',
        payload: expect.objectContaining({
          seq: seen + 3,
          comment: expect.objectContaining({ content: 'Missed this?' }),
        }),
      },
    ]);

    // Live events continue right after, without a hole or a repeat.
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Back' });
    await again.next('workshop:updated');
    expect(again.seqs(w.id)).toEqual([seen + 1, seen + 2, seen + 3, seen + 4]);
  });

  it('catches up after the connection drops and the client reconnects by itself', async () => {
    const { workshop: w, cluster } = await scene();
    // What a client SDK does: remember the last seq, and join again with it after every reconnect.
    const client = await connectSocket(t.url, participant.token, { reconnection: true });
    sockets.track(client);
    const initial = await client.join(w.id);
    const rejoined = new Promise((resolve) => {
      client.socket.once('connect', async () => {
        const since = Math.max(initial.ok ? initial.seq : 0, ...client.seqs(w.id));
        resolve(await client.join(w.id, since));
      });
    });
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Before the drop' });
    await client.next('workshop:updated');

    // The network goes away (a laptop sleeps, a phone changes network): the server loses the connection.
    const dropped = new Promise<string>((resolve) => client.socket.once('disconnect', resolve));
    const serverSide = t.server.realtime.io.sockets.sockets.get(client.socket.id!)!;
    serverSide.conn.close();
    expect(await dropped).toBe('transport close');
    await threeChanges(w.id, cluster.id);

    expect(await rejoined).toEqual({ ok: true, seq: 4, replayed: 3 });
    expect(client.seqs(w.id)).toEqual([1, 2, 3, 4]);
    expect((await eventLog(t, w.id)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('reads the access once for a plain join, and again in the turn of a resume (a role may have changed while it waited)', async () => {
    const { workshop: w, cluster } = await scene();
    const client = sockets.track(await connectSocket(t.url, participant.token));
    await threeChanges(w.id, cluster.id);
    const reads = accessReads();
    try {
      expect(await client.join(w.id)).toEqual({ ok: true, seq: 3 });
      expect(reads.count()).toBe(1);
      expect(await client.join(w.id, 1)).toEqual({ ok: true, seq: 3, replayed: 2 });
      expect(reads.count()).toBe(3);
    } finally {
      reads.stop();
    }
  });

  it('answers reload instead of replaying more than 500 events, or a seq the server never gave', async () => {
    const { workshop: w } = await scene();
    for (let i = 0; i < 502; i++)
      await seedEvent(t, w.id, 'addSection', facilitator.id, { section: { id: `s${i}`, title: `S${i}` } });
    const client = await connectSocket(t.url, participant.token);
    sockets.track(client);

    expect(await client.join(w.id, 1)).toEqual({ ok: true, seq: 502, reload: true });
    expect(await client.join(w.id, 503)).toEqual({ ok: true, seq: 502, reload: true });
    expect(await client.join(w.id, 502)).toEqual({ ok: true, seq: 502, replayed: 0 });
    expect(client.received.filter((r) => r.event !== 'presence')).toEqual([]);

    const ack = await client.join(w.id, 2);
    expect(ack).toEqual({ ok: true, seq: 502, replayed: 500 });
    expect(client.seqs(w.id)).toEqual(Array.from({ length: 500 }, (_, i) => i + 3));
  });

  it('replays under the display prefs, like the live events', async () => {
    const { workshop: w, cluster } = await scene();
    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    const votes = `/v1/workshops/${w.id}/cards/${cluster.id}/votes`;
    await api('POST', votes, other, { value: 2 });
    await api('POST', votes, participant, { value: 1 });

    const pat = await connectSocket(t.url, participant.token);
    const fay = await connectSocket(t.url, facilitator.token);
    sockets.track(pat);
    sockets.track(fay);
    expect(await pat.join(w.id, 0)).toEqual({ ok: true, seq: 2, replayed: 2 });
    expect(pat.received.filter((r) => r.event !== 'presence')).toEqual([
      { event: 'workshop:event', payload: { seq: 1, workshop_id: w.id, action: 'addVote' } },
      { event: 'score:changed', payload: { seq: 2, workshop_id: w.id, card_id: cluster.id, score: 1 } },
    ]);
    await fay.join(w.id, 0);
    expect(fay.all('score:changed').map((p) => p.score)).toEqual([3, 3]);
  });

  it('drops a late copy of an event the join already covered, and delivers newer ones', async () => {
    const { workshop: w, cluster } = await scene();
    await threeChanges(w.id, cluster.id);
    const client = await connectSocket(t.url, participant.token);
    sockets.track(client);
    expect(await client.join(w.id, 1)).toMatchObject({ replayed: 2 });

    // As a broadcast from another instance would arrive, after it had already committed and been replayed.
    const io = t.server.realtime.io;
    io.to(workshopRoom(w.id)).emit('score:changed', { seq: 2, workshop_id: w.id, card_id: cluster.id, score: 1 });
    io.to(workshopRoom(w.id)).emit('score:changed', { seq: 3, workshop_id: w.id, card_id: cluster.id, score: 1 });
    await api('POST', `/v1/workshops/${w.id}/cards/${cluster.id}/votes`, participant, { value: 1 });
    await client.next('score:changed', (p) => p.seq === 4);
    expect(client.all('score:changed').map((p) => p.seq)).toEqual([2, 4]);
    expect(client.all('comment:created').map((p) => p.seq)).toEqual([3]);

    // Joining again replays again: the guard never hides what the client asked for.
    expect(await client.join(w.id, 1)).toMatchObject({ replayed: 3 });
    expect(client.all('score:changed').map((p) => p.seq)).toEqual([2, 4, 2, 4]);
  });
});
