import { describe, expect, it } from 'vitest';
import type { ParticipationOutput } from '../src/modules/participation/schemas';
import { useRedis, useServer, useSockets, useUsers, useInstances } from './helpers/cast';
import { seedCard, seedCriterion, seedWorkshopWith } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import { quietFor, until } from './helpers/wait';

/* Who has voted and rated yet (docs/api.md#participation): counts for everyone, names for facilitators. */

const t = useServer();
const [fay, pat, otto, una] = useUsers(t, 'Fay', 'Pat', 'Otto', 'Una');
const sockets = useSockets(t);

const read = (id: string, user = pat) =>
  t.request<ParticipationOutput>('GET', `/v1/workshops/${id}/participation`, { token: user.token });
const vote = (w: string, card: string, user: typeof pat, value = 1) =>
  t.request('POST', `/v1/workshops/${w}/cards/${card}/votes`, { token: user.token, body: { value } });

describe('participation', () => {
  it('counts participants who voted, spent their budget and rated; names only for facilitators', async () => {
    const w = await seedWorkshopWith(t, fay, [pat, otto, una], { votePositive: 2 });
    const card = await seedCard(t, w.id, fay, { type: 'cluster' });
    const criterion = await seedCriterion(t, w.id, { scale: 1 });
    expect((await read(w.id)).body).toEqual({
      step_id: null,
      participants: 3,
      voted_any: 0,
      voted_all: 0,
      rated_any: 0,
    });

    await vote(w.id, card.id, pat);
    await vote(w.id, card.id, pat);
    await vote(w.id, card.id, otto);
    await vote(w.id, card.id, fay); // a facilitator's vote counts for nobody here
    await t.request('POST', `/v1/workshops/${w.id}/cards/${card.id}/ratings`, {
      token: una.token,
      body: { value: 3, criterium_id: criterion.id },
    });

    expect((await read(w.id)).body).toEqual({
      step_id: null,
      participants: 3,
      voted_any: 2,
      voted_all: 1,
      rated_any: 1,
    });
    const withNames = (await read(w.id, fay)).body;
    expect(withNames.users).toEqual([
      { id: otto.id, name: 'Otto', guest: false, votes_used: 1, ratings: 0 },
      { id: pat.id, name: 'Pat', guest: false, votes_used: 2, ratings: 0 },
      { id: una.id, name: 'Una', guest: false, votes_used: 0, ratings: 1 },
    ]);
  });

  it('never counts anyone as done with an unlimited budget', async () => {
    const w = await seedWorkshopWith(t, fay, [pat], { votePositive: -1 });
    const card = await seedCard(t, w.id, fay, { type: 'cluster' });
    await vote(w.id, card.id, pat);
    expect((await read(w.id)).body).toMatchObject({ voted_any: 1, voted_all: 0 });
  });

  it('is sent at most once a second, latest counts winning, names to facilitators only', async () => {
    const w = await seedWorkshopWith(t, fay, [pat, otto]);
    const card = await seedCard(t, w.id, fay, { type: 'cluster' });
    const screen = await sockets.joined(pat, w.id);
    const desk = await sockets.joined(fay, w.id);
    await Promise.all([
      vote(w.id, card.id, pat),
      vote(w.id, card.id, otto),
      vote(w.id, card.id, pat),
      vote(w.id, card.id, otto),
    ]);
    // The first change is sent at once, the rest of the burst once the second is over.
    const last = await screen.next('participation:changed', (p) => p.voted_any === 2, 3_000);
    expect(last).toEqual({
      workshop_id: w.id,
      step_id: null,
      participants: 2,
      voted_any: 2,
      voted_all: 0,
      rated_any: 0,
    });
    expect((await desk.next('participation:changed', (p) => p.voted_any === 2)).users).toHaveLength(2);
    await quietFor(300, 'no more participation events after the window');
    expect(screen.all('participation:changed').length).toBeLessThanOrEqual(2);
    expect(screen.all('participation:changed').every((p) => p.users === undefined)).toBe(true);
  });
});

describe.skipIf(!redisAvailable)('participation on two instances sharing a database and Redis', () => {
  const redis = useRedis();
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url }));
  const onA = useSockets(a);
  const [host, watcher, ...voters] = useUsers(a, 'Host', 'Watcher', 'V1', 'V2', 'V3', 'V4');

  it('reaches a client at most once a second, whichever instances the votes went through, the last with the final counts', async () => {
    const w = await seedWorkshopWith(a, host, [watcher, ...voters], { votePositive: 2 });
    const card = await seedCard(a, w.id, host, { type: 'cluster' });
    const screen = await onA.joined(watcher, w.id);
    const arrivals: Array<{ at: number; counts: ParticipationOutput }> = [];
    screen.socket.on('participation:changed', ({ workshop_id: _w, ...counts }) =>
      arrivals.push({ at: performance.now(), counts }),
    );

    // Eight votes over about two seconds, in turn through each instance.
    for (const [n, voter] of [...voters, ...voters].entries()) {
      const through = n % 2 === 0 ? a : b;
      const res = await through.request('POST', `/v1/workshops/${w.id}/cards/${card.id}/votes`, {
        token: voter.token,
        body: { value: 1 },
      });
      expect(res.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const final = (
      await a.request<ParticipationOutput>('GET', `/v1/workshops/${w.id}/participation`, { token: watcher.token })
    ).body;
    expect(final).toMatchObject({ participants: 5, voted_any: 4, voted_all: 4 });
    await until(() => arrivals.at(-1)?.counts.voted_all === 4, 'the final counts', 5_000);
    await quietFor(1_500, 'no event after the final counts');

    expect(arrivals.length).toBeGreaterThanOrEqual(2);
    const gaps = arrivals.slice(1).map(({ at }, n) => Math.round(at - arrivals[n]!.at));
    // One slot a second for the service; a little less between arrivals for the network's jitter.
    for (const gap of gaps) expect(gap, `gaps between events: ${gaps.join(', ')} ms`).toBeGreaterThan(900);
    expect(arrivals.at(-1)!.counts).toEqual(final);
  });
});
