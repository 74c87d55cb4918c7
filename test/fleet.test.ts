import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { startFleet, type Fleet } from './helpers/fleet';
import { fleetCanvas, fleetUser, fleetWorkshop } from './helpers/fleet-scene';
import { pngImage } from './helpers/factories';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { startS3, type TestS3 } from './helpers/s3';
import { connectSocket } from './helpers/sockets';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { until } from './helpers/wait';

/*
 * Three instances as three processes, one PostgreSQL, one Redis: one service whichever instance a
 * request reaches (docs/operations.md#several-instances).
 */
describe.skipIf(testStore !== 'postgres' || !redisAvailable)('a fleet of three instances', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let databaseUrl: string;
  let fleet: Fleet;

  beforeAll(async () => {
    redis = await startRedis();
    s3 = await startS3();
    databaseUrl = await freshPostgresDatabase();
    const files = {
      FILES_URL: `s3://${s3.bucket}/fleet`,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
    fleet = await startFleet({ size: 3, env: { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, ...files } });
  }, 60_000);

  beforeEach(() => onTestFailed(() => console.log(fleet.logs())));

  afterAll(async () => {
    await fleet?.stop();
    await s3?.close();
    await redis?.stop();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  });

  it('is one service: signed up on A, joined on B, voting on C, seen live on A in seq order, canvas moves everywhere', async () => {
    const [a, b, c] = fleet.instances.map((instance) => instance.url) as [string, string, string];
    const fay = await fleetUser(a, 'Fay');
    const pat = await fleetUser(a, 'Pat');
    // Pat's token, made on A, is known on B: the join goes through B.
    const workshop = await fleetWorkshop(a, fay, []);
    const { access_code } = await fay.on(a).get('/v1/workshops/{workshop_id}/access_code', workshop.inWorkshop);
    expect((await pat.on(b).post('/v1/workshops/join', { body: { access_code } })).id).toBe(workshop.id);

    const watcher = await connectSocket(a, fay.token);
    expect((await watcher.join(workshop.id)).ok).toBe(true);
    const ideas: Array<{ id: string }> = [];
    for (let i = 0; i < 5; i++) {
      ideas.push(
        await pat.on(c).post('/v1/workshops/{workshop_id}/cards', {
          ...workshop.inWorkshop,
          body: { type: 'idea', title: `Idea ${i}`, parent: workshop.clusterId },
        }),
      );
    }
    for (const idea of ideas) {
      await pat.on(c).post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
        params: { path: { workshop_id: workshop.id, card_id: idea.id } },
        body: { value: 1 },
      });
    }
    // The workshop's latest seq, as a socket joining on B is told it.
    const probe = await connectSocket(b, fay.token);
    const joined = await probe.join(workshop.id);
    probe.close();
    if (!joined.ok) throw new Error(JSON.stringify(joined));
    const lastSeq = joined.seq;
    await until(() => watcher.seqs(workshop.id).at(-1) === lastSeq, 'the writes on C, live on A');
    const seen = watcher.seqs(workshop.id);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => seen[0]! + i));
    watcher.close();

    const canvases = await Promise.all([a, b, c].map((url) => fleetCanvas(url, fay, workshop.id)));
    canvases[1]!.moveCard(ideas[0]!.id, { x: 120, y: 80 });
    await until(
      () => canvases.every((canvas) => canvas.placement(ideas[0]!.id)?.x === 120),
      'the move on B, on A and C',
    );
    for (const canvas of canvases) canvas.destroy();
  });

  it('shares files: an upload through A is resized on C, an export started on B downloads through C', async () => {
    const [a, b, c] = fleet.instances.map((instance) => instance.url) as [string, string, string];
    const fay = await fleetUser(a, 'Fay');
    const workshop = await fleetWorkshop(a, fay, []);

    const png = await pngImage(64, 48);
    const upload = await fay
      .on(a)
      .post('/v1/uploads', { body: { file: new Blob([new Uint8Array(png)], { type: 'image/png' }) } });
    const step = await fay
      .on(a)
      .post('/v1/workshops/{workshop_id}/steps', { ...workshop.inWorkshop, body: { name: 'Illustrated' } });
    const illustration = await fay.on(a).post('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
      params: { path: { workshop_id: workshop.id, step_id: step.id } },
      body: { blob: { key: upload.key, container: upload.container } },
    });
    // The links name the balancer; ask C for them directly.
    const onC = (link: string) => link.replace(fleet.proxy.url, c);
    const resized = await fetch(onC(illustration.resize_url.replace('{{width}}', '32').replace('{{height}}', '24')));
    expect(resized.status).toBe(200);
    expect(resized.headers.get('content-type')).toMatch(/^image\//);
    expect((await resized.arrayBuffer()).byteLength).toBeGreaterThan(0);

    const made = await fay
      .on(b)
      .post('/v1/workshops/{workshop_id}/exports', { ...workshop.inWorkshop, body: { type: 'csv' } });
    const inExport = { params: { path: { workshop_id: workshop.id, id: made.id } } };
    await until(
      async () => (await fay.on(c).get('/v1/workshops/{workshop_id}/exports/{id}', inExport)).state === 'success',
      'the export made',
      15_000,
    );
    const done = await fay.on(c).get('/v1/workshops/{workshop_id}/exports/{id}', inExport);
    const download = await fetch(onC(done.url!));
    expect(download.status).toBe(200);
    expect(await download.text()).toContain('Ideas');
    expect((await s3.keys('fleet/exports/')).length).toBeGreaterThan(0);
  });
});
