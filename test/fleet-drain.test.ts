import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { openWorkshop } from '../client-sdk/src/live';
import { startFleet, type Fleet } from './helpers/fleet';
import { fleetCanvas, fleetUser, fleetWorkshop } from './helpers/fleet-scene';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { until } from './helpers/wait';

/*
 * A deploy stops one instance with SIGTERM while people work (CONTRACT §10 "Deploys"). Its clients
 * are told to reconnect, land on another instance through the load balancer, and resume: no live
 * event and no canvas update is lost, and nobody reloads.
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
        const card = await fay.on(b.url).post('/v1/workshops/{workshop_id}/cards', { ...workshop.inWorkshop, body: { type: 'idea', title: `Idea ${i}`, parent: workshop.clusterId } });
        created.push(card.id);
        // The card reaches C's document from B's write through Redis.
        await until(() => fayCanvas.placement(card.id) !== undefined, 'the new card on the canvas through C');
        fayCanvas.moveCard(card.id, { x: i * 10, y: i * 5 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await until(() => createdLive.length >= 10, 'cards live through A', 10_000);

    const stoppedAt = Date.now();
    const exitCode = await a.stop('SIGTERM');
    const drainMs = Date.now() - stoppedAt;
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
    await until(() => createdLive.length === created.length, `every card live for Pat (${createdLive.length} of ${created.length})`, 15_000);
    expect(createdLive).toEqual(created);
    expect(live.state.status).toBe('live');
    expect(live.state.cards.filter((card) => card.type === 'idea').map((card) => card.id).sort()).toEqual([...created].sort());
    expect(proxy.openTo(b.index) + proxy.openTo(c.index)).toBeGreaterThanOrEqual(2);
    // And every move Fay made on C, through whichever instance Pat's canvas reconnected to.
    const last = created.length - 1;
    await until(() => patCanvas.placement(created[last]!)?.x === last * 10, 'the last move on Pat\'s canvas', 15_000);
    for (const [i, id] of created.entries()) expect(patCanvas.placement(id)).toMatchObject({ x: i * 10, y: i * 5 });

    live.close();
    patCanvas.destroy();
    fayCanvas.destroy();
  }, 60_000);
});
