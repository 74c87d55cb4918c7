import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { openWorkshop } from '../client-sdk/src/live';
import { startFleet, type Fleet } from './helpers/fleet';
import { fleetCanvas, fleetUser, fleetWorkshop } from './helpers/fleet-scene';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { connectSocket } from './helpers/sockets';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { quietFor, until } from './helpers/wait';

/**
 * A JSON POST whose body is sent in two halves: the request is in flight on the server from the
 * first half until `finish` sends the second, and answers once it is all there.
 */
function slowPost(url: string, path: string, token: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  const sent = request(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': payload.length },
  });
  const answered = new Promise<{ status: number; body: any }>((resolve, reject) => {
    sent.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    sent.on('error', reject);
  });
  const started = new Promise<void>((resolve) =>
    sent.once('socket', (socket) => socket.once('connect', () => resolve())),
  );
  sent.write(payload.subarray(0, half));
  return {
    started,
    finish() {
      sent.end(payload.subarray(half));
      return answered;
    },
  };
}

/*
 * A deploy stops one instance with SIGTERM while people work
 * (docs/operations.md#deploys-without-losing-anyone). Its clients are told to reconnect, land on
 * another instance through the load balancer, and resume: no live event and no canvas update is
 * lost, and nobody reloads.
 */
describe.skipIf(testStore !== 'postgres' || !redisAvailable)('an instance drained during a workshop', () => {
  let redis: TestRedis;
  let databaseUrl: string;
  let fleet: Fleet;

  beforeAll(async () => {
    redis = await startRedis();
    databaseUrl = await freshPostgresDatabase();
    fleet = await startFleet({ size: 3, env: { DATABASE_URL: databaseUrl, REDIS_URL: redis.url } });
  }, 60_000);

  afterAll(async () => {
    await fleet?.stop();
    await redis?.stop();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  });

  it('moves its clients to the other instances with every event and every canvas move, and exits within 10 s', async () => {
    onTestFailed(() => console.log(fleet.logs()));
    const [a, b, c] = fleet.instances as [Fleet['instances'][0], Fleet['instances'][0], Fleet['instances'][0]];
    const fay = await fleetUser(b.url, 'Fay');
    const pat = await fleetUser(b.url, 'Pat');
    const workshop = await fleetWorkshop(b.url, fay, [pat]);

    // Pat's live connections go through the load balancer, to A.
    const { proxy } = fleet;
    proxy.pin('/socket.io/', a.index);
    proxy.pin('/v1/sync', a.index);
    const fast = { socket: { transports: ['websocket' as const], reconnectionDelay: 100, reconnectionDelayMax: 500 } };
    const live = await openWorkshop(pat.on(proxy.url), workshop.id, fast);
    const patCanvas = await fleetCanvas(proxy.url, pat, workshop.id);
    expect(proxy.openTo(a.index)).toBeGreaterThanOrEqual(2);
    proxy.unpin();
    const createdLive: string[] = [];
    live.on('card:created', (payload) => createdLive.push(payload.card.id));

    // Fay writes through B and moves cards through C the whole time.
    const fayCanvas = await fleetCanvas(c.url, fay, workshop.id);
    const created: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const card = await fay.on(b.url).post('/v1/workshops/{workshop_id}/cards', {
          ...workshop.inWorkshop,
          body: { type: 'idea', title: `Idea ${i}`, parent: workshop.clusterId },
        });
        created.push(card.id);
        // The card reaches C's document from B's write through Redis.
        await until(() => fayCanvas.placement(card.id) !== undefined, 'the new card on the canvas through C');
        fayCanvas.moveCard(card.id, { x: i * 10, y: i * 5 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await until(() => createdLive.length >= 10, 'cards live through A', 10_000);

    // A write reaching A just before the deploy, its body still arriving when SIGTERM comes: it
    // finishes while A drains, and its event still reaches a screen on B (on a workshop nobody else
    // writes to, so no later event's gap could bring it by a resume).
    const quiet = await fleetWorkshop(b.url, fay, [pat]);
    const watcher = await connectSocket(b.url, pat.token);
    expect(await watcher.join(quiet.id)).toMatchObject({ ok: true });
    const slow = slowPost(a.url, `/v1/workshops/${quiet.id}/cards`, fay.token, {
      type: 'idea',
      title: 'Written while A drains',
      parent: quiet.clusterId,
    });
    await slow.started;
    await quietFor(100, 'the first half of the request reaching A');

    const stoppedAt = Date.now();
    const stopping = a.stop('SIGTERM');
    await until(() => a.run.stdout().includes('SIGTERM:'), 'A draining');
    const slowCard = await slow.finish();
    const exitCode = await stopping;
    const drainMs = Date.now() - stoppedAt;
    expect(slowCard.status).toBe(201);
    await watcher.next('card:created', (payload) => payload.card.id === slowCard.body.id, 5_000);
    watcher.close();
    const createdByThen = created.length;
    try {
      await until(() => created.length >= createdByThen + 10, 'more cards after A left', 10_000);
    } finally {
      writing = false;
      await writer;
    }

    expect(exitCode).toBe(0);
    expect(drainMs).toBeLessThan(10_000);
    // Pat is on B or C now, and missed nothing: every card arrived as its own live event, once.
    await until(
      () => createdLive.length === created.length,
      `every card live for Pat (${createdLive.length} of ${created.length})`,
      15_000,
    );
    expect(createdLive).toEqual(created);
    expect(live.state.status).toBe('live');
    expect(
      live.state.cards
        .filter((card) => card.type === 'idea')
        .map((card) => card.id)
        .sort(),
    ).toEqual([...created].sort());
    expect(proxy.openTo(b.index) + proxy.openTo(c.index)).toBeGreaterThanOrEqual(2);
    // And every move Fay made on C, through whichever instance Pat's canvas reconnected to.
    const last = created.length - 1;
    await until(() => patCanvas.placement(created[last]!)?.x === last * 10, "the last move on Pat's canvas", 15_000);
    for (const [i, id] of created.entries()) expect(patCanvas.placement(id)).toMatchObject({ x: i * 10, y: i * 5 });

    live.close();
    patCanvas.destroy();
    fayCanvas.destroy();
  }, 60_000);
});
