import { describe, expect, it } from 'vitest';
import { useRedis, useServer, useSockets, useUsers, useInstances } from './helpers/cast';
import { seedWorkshopWith, type TestUser } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { connectSocket, type LiveClient } from './helpers/sockets';

/*
 * The reveal on a plain Socket.IO client (not the SDK): when what participants may read of each
 * other's cards changes (`cards_visible` of the current step, by a step change or by editing the
 * current step), each participant's socket is told to read the cards again with a `workshop:event`
 * carrying `reload: true` and the change's `seq`, sent live, in a resume's replay and from another
 * instance. Facilitators saw every card all along and are not told.
 */

const api = async <T = any>(
  server: TestServer,
  method: string,
  path: string,
  user: TestUser,
  body?: unknown,
): Promise<T> => {
  const res = await server.request<T>(method, path, { token: user.token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
};

/** A workshop of `fay` with `pat` and `quinn`, a private step (current) and an open one, and an idea of each participant. */
async function privateScene(server: TestServer, fay: TestUser, pat: TestUser, quinn: TestUser) {
  const w = await seedWorkshopWith(server, fay, [pat, quinn]);
  const base = `/v1/workshops/${w.id}`;
  const write = await api(server, 'POST', `${base}/steps`, fay, {
    name: 'Write alone',
    prefs: { cards_visible: 'own' },
  });
  const discuss = await api(server, 'POST', `${base}/steps`, fay, { name: 'Discuss', prefs: { cards_visible: 'all' } });
  await api(server, 'PUT', base, fay, { current_step_id: write.id });
  const board = await api(server, 'POST', `${base}/cards`, fay, { type: 'cluster', title: 'Board' });
  const patsIdea = await api(server, 'POST', `${base}/cards`, pat, {
    type: 'idea',
    parent: board.id,
    title: "Pat's idea",
  });
  const quinnsIdea = await api(server, 'POST', `${base}/cards`, quinn, {
    type: 'idea',
    parent: board.id,
    title: "Quinn's idea",
  });
  const changeStep = (stepId: string) => api(server, 'PUT', base, fay, { current_step_id: stepId });
  const titlesFor = async (user: TestUser) =>
    (await api<Array<{ title: string }>>(server, 'GET', `${base}/cards`, user)).map((card) => card.title).sort();
  return { w, base, write, discuss, board, patsIdea, quinnsIdea, changeStep, titlesFor };
}

const reloads = (client: LiveClient) => client.all('workshop:event', (p) => p.reload === true);

describe('the reveal reaches plain Socket.IO clients', () => {
  const t = useServer();
  const [fay, pat, quinn] = useUsers(t, 'Fay', 'Pat', 'Quinn');
  const sockets = useSockets(t);

  /** Resolves once `client` has every event up to now: a rename by Fay arrives after all of them. */
  const caughtUp = async (client: LiveClient, workshopId: string, marker: string) => {
    await api(t, 'PUT', `/v1/workshops/${workshopId}`, fay, { title: marker });
    await client.next('workshop:updated', (p) => p.workshop.title === marker, 5_000);
  };

  it('tells each participant to read the cards again when the step reveals them, after the step change, with its seq', async () => {
    const { w, discuss, changeStep, titlesFor } = await privateScene(t, fay, pat, quinn);
    const [fayLive, patLive, quinnLive] = [
      await sockets.joined(fay, w.id),
      await sockets.joined(pat, w.id),
      await sockets.joined(quinn, w.id),
    ];
    expect(await titlesFor(pat)).toEqual(['Board', "Pat's idea"]);

    await changeStep(discuss.id);
    for (const live of [patLive, quinnLive]) {
      const changed = await live.next('step:changed', (p) => p.step?.id === discuss.id);
      const reload = await live.next('workshop:event', (p) => p.reload === true);
      expect(reload).toEqual({ seq: changed.seq, workshop_id: w.id, action: 'changeStep', reload: true });
      // After the step change itself: a client that reloads then reads the cards as the new step shows them.
      const order = live.received.map((r) => r.event);
      expect(order.lastIndexOf('workshop:event')).toBeGreaterThan(order.lastIndexOf('step:changed'));
    }
    expect(await titlesFor(pat)).toEqual(['Board', "Pat's idea", "Quinn's idea"]);

    // The facilitator saw every card already: the step change, and no reload.
    await caughtUp(fayLive, w.id, 'After the reveal');
    expect(fayLive.all('step:changed', (p) => p.step?.id === discuss.id)).toHaveLength(1);
    expect(reloads(fayLive)).toEqual([]);
    // Each participant got it once.
    await caughtUp(patLive, w.id, 'Marker for Pat');
    expect(reloads(patLive)).toHaveLength(1);
  });

  it('tells participants again when a step hides the cards, and says nothing when what they read stays', async () => {
    const { w, base, write, discuss, changeStep, titlesFor } = await privateScene(t, fay, pat, quinn);
    await changeStep(discuss.id);
    const also = await api(t, 'POST', `${base}/steps`, fay, { name: 'Vote', prefs: { cards_visible: 'all' } });
    const [fayLive, patLive] = [await sockets.joined(fay, w.id), await sockets.joined(pat, w.id)];

    // all → all: nothing to read again.
    await changeStep(also.id);
    await caughtUp(patLive, w.id, 'Still open');
    expect(reloads(patLive)).toEqual([]);

    // all → own: the cards Pat holds include some he may no longer read.
    await changeStep(write.id);
    const changed = await patLive.next('step:changed', (p) => p.step?.id === write.id);
    expect(await patLive.next('workshop:event', (p) => p.reload === true)).toEqual({
      seq: changed.seq,
      workshop_id: w.id,
      action: 'changeStep',
      reload: true,
    });
    expect(await titlesFor(pat)).toEqual(['Board', "Pat's idea"]);

    // own → no current step (the defaults show every card): a reveal too.
    await changeStep(null as unknown as string);
    const none = await patLive.next('step:changed', (p) => p.step === null);
    expect(await patLive.next('workshop:event', (p) => p.reload === true && p.seq === none.seq)).toMatchObject({
      action: 'changeStep',
    });

    await caughtUp(fayLive, w.id, 'Done');
    expect(reloads(fayLive)).toEqual([]);
  });

  it('tells participants when the current step itself is edited to reveal, not when another step is', async () => {
    const { w, base, write, discuss } = await privateScene(t, fay, pat, quinn);
    const [fayLive, patLive] = [await sockets.joined(fay, w.id), await sockets.joined(pat, w.id)];

    await api(t, 'PUT', `${base}/steps/${discuss.id}`, fay, { name: 'Discuss', prefs: { cards_visible: 'own' } });
    await caughtUp(patLive, w.id, 'Another step edited');
    expect(reloads(patLive)).toEqual([]);

    await api(t, 'PUT', `${base}/steps/${write.id}`, fay, { name: 'Write alone', prefs: { cards_visible: 'all' } });
    const reload = await patLive.next('workshop:event', (p) => p.reload === true);
    expect(reload).toMatchObject({
      workshop_id: w.id,
      action: 'updateStep',
      reload: true,
      change: { step: { id: write.id } },
    });
    const edited = await fayLive.next(
      'workshop:event',
      (p) => p.action === 'updateStep' && p.change.step.id === write.id,
    );
    expect(edited.seq).toBe(reload.seq);
    expect(edited.reload).toBeUndefined();
  });

  it('tells a participant who resumes across the reveal, in the replay', async () => {
    const { w, discuss, changeStep } = await privateScene(t, fay, pat, quinn);
    const first = await sockets.joined(pat, w.id);
    await caughtUp(first, w.id, 'Seen before');
    const seen = first.seqs(w.id).at(-1)!;
    first.close();

    await changeStep(discuss.id);
    await api(t, 'PUT', `/v1/workshops/${w.id}`, fay, { title: 'After' });
    const again = sockets.track(await connectSocket(t.url, pat.token));
    const ack = await again.join(w.id, seen);
    expect(ack).toEqual({ ok: true, seq: seen + 2, replayed: 2 });
    expect(reloads(again)).toEqual([{ seq: seen + 1, workshop_id: w.id, action: 'changeStep', reload: true }]);

    // The facilitator's replay carries the step change alone.
    const fayAgain = sockets.track(await connectSocket(t.url, fay.token));
    expect(await fayAgain.join(w.id, seen)).toMatchObject({ ok: true, replayed: 2 });
    expect(fayAgain.all('step:changed')).toHaveLength(1);
    expect(reloads(fayAgain)).toEqual([]);
  });
});

describe.skipIf(!redisAvailable)('the reveal across two instances sharing one Redis', () => {
  const redis = useRedis();
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url }));
  const [fay, pat, quinn] = useUsers(a, 'Fay', 'Pat', 'Quinn');
  const sockets = useSockets(a);

  it('reaches a participant connected to the other instance', async () => {
    const { w, discuss, changeStep } = await privateScene(a, fay, pat, quinn);
    const patOnB = await sockets.joined(pat, w.id, b);
    const fayOnB = await sockets.joined(fay, w.id, b);

    await changeStep(discuss.id);
    const changed = await patOnB.next('step:changed', (p) => p.step?.id === discuss.id);
    expect(await patOnB.next('workshop:event', (p) => p.reload === true)).toEqual({
      seq: changed.seq,
      workshop_id: w.id,
      action: 'changeStep',
      reload: true,
    });
    await api(a, 'PUT', `/v1/workshops/${w.id}`, fay, { title: 'Marker' });
    await fayOnB.next('workshop:updated', (p) => p.workshop.title === 'Marker');
    expect(reloads(fayOnB)).toEqual([]);
  });
});
