import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { ApiError } from '../client-sdk/src/index';
import { openWorkshop, type LiveWorkshop } from '../client-sdk/src/live';
import type { WorkshopCanvas } from '../client-sdk/src/canvas';
import { postgresBinaries, startPostgresCluster, type PostgresCluster } from '../scripts/postgres-cluster';
import { startFleet, type Fleet, type FleetInstance } from './helpers/fleet';
import { startLoad, type LoadReport } from './helpers/fleet-load';
import { fleetCanvas, fleetUser, fleetWorkshop, type FleetUser } from './helpers/fleet-scene';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { startSmtp, type TestSmtp } from './helpers/smtp';
import { testStore } from './helpers/store';
import { until } from './helpers/wait';

/*
 * The fleet under faults (docs/operations.md#several-instances): three instances as processes, each with its own folder
 * and port, on one PostgreSQL (a cluster of this file's own, so it can be stopped), one Redis and
 * one SMTP server, with one SECRET, behind a round-robin load balancer. Thirty people write through
 * the balancer while Redis goes away, then PostgreSQL, then an instance is killed. Every write the
 * service acknowledged must be stored, the log must stay gap-free, every live screen and canvas
 * must end equal to the store, and no request may get a 500 or hang.
 *
 * Among the slowest files (about 115 s, `npm run test:slowest`), on purpose: each fault lasts as
 * long as a real one must to be a fault (Redis away for 10 s, PostgreSQL away for 10 s, an
 * instance killed during 60 s of work), the fleet is given its time to recover, and three instances
 * are started as processes. It runs on PostgreSQL only.
 */

const PARTICIPANTS = 30;
const LIVE_SCREENS = 6;
const CANVASES = 3;
/** Leases shortened, so a dead instance's mail and export are taken over within the test. */
const LEASE_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(testStore !== 'postgres' || !redisAvailable || !postgresBinaries())('the fleet under faults', () => {
  let cluster: PostgresCluster;
  let redis: TestRedis;
  let smtp: TestSmtp;
  let fleet: Fleet;
  let db: pg.Pool;

  beforeAll(async () => {
    cluster = await startPostgresCluster(['fsync=off', 'max_connections=200']);
    const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE fleet');
    await admin.end();
    const databaseUrl = `${cluster.baseUrl}fleet`;
    redis = await startRedis();
    smtp = await startSmtp({ stallFirst: (to) => to.startsWith('stalled-') });
    fleet = await startFleet({
      size: 3,
      env: {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        SMTP_URL: smtp.url,
        MAIL_LEASE_MS: String(LEASE_MS),
        EXPORT_LEASE_MS: String(LEASE_MS),
        // Thirty-one people sign up through the balancer, all from the loopback address.
        SIGNUPS_PER_ADDRESS_PER_MINUTE: '0',
      },
    });
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    db.on('error', () => {});
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await fleet?.stop();
    await smtp?.close();
    await redis?.stop();
    cluster?.stop();
  });

  /** Prints the instances' logs when a test fails: what they said is the first thing to read. */
  const logsOnFailure = () =>
    onTestFailed(() => {
      for (const instance of fleet.instances)
        console.log(
          `--- instance ${instance.name}\n${instance.run.stdout().slice(-4_000)}\n${instance.run.stderr().slice(-4_000)}`,
        );
    });

  interface Scene {
    workshop: { id: string; clusterId: string };
    facilitator: FleetUser;
    participants: FleetUser[];
    screens: LiveWorkshop[];
    canvases: WorkshopCanvas[];
  }

  /** A workshop with 30 participants, 6 of them following it live and 3 on its canvas, all through the balancer. */
  async function scene(): Promise<Scene> {
    const url = fleet.proxy.url;
    const facilitator = await fleetUser(url, 'Fay');
    const participants = await Promise.all(Array.from({ length: PARTICIPANTS }, (_, i) => fleetUser(url, `P${i}`)));
    const workshop = await fleetWorkshop(url, facilitator, participants);
    const live = {
      socket: { transports: ['websocket' as const], reconnectionDelay: 200, reconnectionDelayMax: 1_000 },
    };
    const screens = await Promise.all(
      participants.slice(0, LIVE_SCREENS).map((user) => openWorkshop(user.on(url), workshop.id, live)),
    );
    const canvases = await Promise.all(
      participants.slice(0, CANVASES).map((user) => fleetCanvas(url, user, workshop.id)),
    );
    return { workshop, facilitator, participants, screens, canvases };
  }

  function loadOn(s: Scene) {
    return startLoad({
      url: fleet.proxy.url,
      workshopId: s.workshop.id,
      clusterId: s.workshop.clusterId,
      participants: s.participants,
      canvases: s.canvases,
      thinkMs: 350,
    });
  }

  /**
   * Sends a request again while it is answered 503 (a lock it needs held by a frozen instance, or
   * every connection of the instance waiting on one), as its Retry-After asks.
   */
  async function whileBusy<T>(request: () => Promise<T>, ms = 3_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        return await request();
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 503 || Date.now() > deadline) throw err;
        await sleep(200);
      }
    }
  }

  const alive = () =>
    fleet.instances.filter(
      (instance) => instance.run.child.exitCode === null && instance.run.child.signalCode === null,
    );

  async function idsIn(table: string, workshopId: string): Promise<Set<string>> {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM ${table} WHERE workshop_id = $1`, [workshopId]);
    return new Set(rows.map((row) => row.id));
  }

  /** Everything acknowledged is stored, the log is 1..N, and every screen and canvas ends equal to the store. */
  async function expectConsistent(s: Scene, report: LoadReport) {
    expect(report.violations).toEqual([]);
    const cards = await idsIn('cards', s.workshop.id);
    const votes = await idsIn('votes', s.workshop.id);
    const comments = await idsIn('comments', s.workshop.id);
    expect(report.cards.filter((id) => !cards.has(id))).toEqual([]);
    expect(report.votes.filter((id) => !votes.has(id))).toEqual([]);
    expect(report.comments.filter((id) => !comments.has(id))).toEqual([]);

    const { rows } = await db.query<{ seq: number }>('SELECT seq FROM events WHERE workshop_id = $1 ORDER BY seq', [
      s.workshop.id,
    ]);
    const seqs = rows.map((row) => Number(row.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const last = seqs.at(-1)!;

    for (const [i, screen] of s.screens.entries()) {
      await until(
        () => screen.state.status === 'live' && screen.state.seq === last,
        `screen ${i} live at seq ${last} (${screen.state.status} at ${screen.state.seq})`,
        20_000,
      );
      expect(new Set(screen.state.cards.map((card) => card.id))).toEqual(cards);
    }

    // The canvases, reconnected, hold what a new reader of each instance still up gets.
    for (const canvas of s.canvases)
      await until(() => canvas.provider.synced && canvas.provider.wsconnected, 'a canvas back in step', 20_000);
    const readers = await Promise.all(
      alive().map((instance) => fleetCanvas(instance.url, s.facilitator, s.workshop.id)),
    );
    try {
      const expected = readers[0]!.placements();
      for (const reader of readers) expect(reader.placements()).toEqual(expected);
      // Compared card by card: a document lists its keys in the order it came to know them, which differs between peers.
      for (const canvas of s.canvases)
        await until(
          () => isDeepStrictEqual(canvas.placements(), expected),
          "a canvas equal to the instances' documents",
          20_000,
        );
    } finally {
      for (const reader of readers) reader.destroy();
    }
  }

  function close(s: Scene) {
    for (const screen of s.screens) screen.close();
    for (const canvas of s.canvases) canvas.destroy();
  }

  /** Answers of every instance still up to `path`, each within `ms` or marked as hanging. */
  async function statusesOf(path: string, ms = 5_000): Promise<number[]> {
    return Promise.all(
      alive().map(async (instance) => {
        try {
          const res = await fetch(`${instance.url}${path}`, { signal: AbortSignal.timeout(ms) });
          await res.arrayBuffer();
          return res.status;
        } catch {
          return -1;
        }
      }),
    );
  }

  it('keeps serving while Redis is away for 10 s', async () => {
    logsOnFailure();
    const s = await scene();
    const load = loadOn(s);
    await sleep(4_000);
    await redis.stop();
    await sleep(10_000);
    await redis.start();
    await sleep(6_000);
    const report = await load.stop();
    expect(load.acknowledged()).toBeGreaterThan(100);
    // Every screen follows the log again within seconds of the last write, Redis being back.
    const {
      rows: [last],
    } = await db.query<{ seq: number }>('SELECT max(seq) AS seq FROM events WHERE workshop_id = $1', [s.workshop.id]);
    for (const [i, screen] of s.screens.entries())
      await until(() => screen.state.seq === Number(last!.seq), `screen ${i} at seq ${last!.seq}`, 5_000);
    await expectConsistent(s, report);
    close(s);
  }, 120_000);

  it('answers 503 within 5 s while PostgreSQL is away for 10 s, and serves again within 5 s of its return', async () => {
    logsOnFailure();
    const s = await scene();
    const load = loadOn(s);
    await sleep(4_000);
    const before = load.acknowledged();
    await cluster.halt();
    const haltedAt = Date.now();
    // The instances say so, promptly: liveness and readiness both 503.
    await until(
      async () => (await statusesOf('/health')).every((status) => status === 503),
      '/health 503 on every instance',
      5_000,
      200,
    );
    await until(
      async () => (await statusesOf('/ready')).every((status) => status === 503),
      '/ready 503 on every instance',
      5_000,
      200,
    );
    await sleep(Math.max(0, 10_000 - (Date.now() - haltedAt)));
    const duringOutage = load.acknowledged() - before;
    await cluster.resume();
    const resumedAt = Date.now();
    // Each instance, same process, writes again within 5 s.
    await until(
      async () => (await statusesOf('/ready')).every((status) => status === 200),
      '/ready 200 on every instance',
      5_000,
      100,
    );
    const writer = s.participants[0]!;
    for (const instance of alive()) {
      await until(
        async () => {
          const res = await fetch(`${instance.url}/v1/workshops/${s.workshop.id}/cards`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${writer.token}` },
            body: JSON.stringify({ type: 'idea', title: 'Back', parent: s.workshop.clusterId }),
          });
          return res.status === 201;
        },
        `a write through ${instance.name} after the return`,
        Math.max(100, 5_000 - (Date.now() - resumedAt)),
        100,
      );
    }
    await sleep(5_000);
    const report = await load.stop();
    // Writes stopped while the database was away (at most what was committing as it went).
    expect(duringOutage).toBeLessThan(PARTICIPANTS);
    expect(report.statuses.get(503) ?? 0).toBeGreaterThan(0);
    // The instances stayed up: no connection was refused or cut.
    expect(report.statuses.get(0) ?? 0).toBe(0);
    await expectConsistent(s, report);
    close(s);
  }, 120_000);

  it('loses nothing acknowledged when an instance is killed during 60 s of work, and its mail and export are done by another', async () => {
    logsOnFailure();
    const s = await scene();
    // The workshop to export, made now: what its making sets off on the instances is long over
    // when they are frozen, and none of them holds its row then.
    const exported = await fleetWorkshop(fleet.proxy.url, s.facilitator, []);
    const load = loadOn(s);
    await sleep(20_000);

    // The victim takes a mail and an export while the others are frozen, so it alone holds them:
    // the mail hangs at the SMTP server (its first offer is never answered), the export is rendering.
    // The export is of a workshop of its own: a frozen instance may be holding the busy workshop's
    // row lock mid-write, and writing there would answer 503 until it thaws.
    const [victim, ...others] = fleet.instances as [FleetInstance, ...FleetInstance[]];
    const victimApi = s.facilitator.on(victim.url);
    for (const other of others) other.run.child.kill('SIGSTOP');
    let exportId: string;
    try {
      await whileBusy(() => fleetUser(victim.url, 'stalled-mail'));
      await until(() => smtp.stalled.length === 1, 'the victim hanging on a mail', 10_000);
      const made = await whileBusy(() =>
        victimApi.post('/v1/workshops/{workshop_id}/exports', {
          params: { path: { workshop_id: exported.id } },
          body: { type: 'pdf' },
        }),
      );
      exportId = made.id;
      await until(
        async () =>
          (await db.query('SELECT 1 FROM workshop_exports WHERE id = $1 AND lease_until IS NOT NULL', [exportId]))
            .rowCount === 1,
        'the victim taking the export',
        10_000,
      );
      victim.run.child.kill('SIGKILL');
    } finally {
      for (const other of others) other.run.child.kill('SIGCONT');
    }
    const {
      rows: [held],
    } = await db.query<{ state: string }>('SELECT state FROM workshop_exports WHERE id = $1', [exportId]);
    await victim.run.exited;

    await sleep(40_000);
    const report = await load.stop();
    await expectConsistent(s, report);

    // The mail the victim held is sent by another instance once its lease ran out: once.
    const stalledTo = smtp.stalled[0]!;
    await until(
      () => smtp.received.some((mail) => mail.to.includes(stalledTo)),
      'the held mail sent by another instance',
      15_000,
    );
    expect(smtp.received.filter((mail) => mail.to.includes(stalledTo))).toHaveLength(1);
    // And the export it was rendering, unless it finished before dying, is made by another.
    if (held!.state === 'pending') {
      await until(
        async () =>
          (await db.query('SELECT 1 FROM workshop_exports WHERE id = $1 AND state = $2', [exportId, 'success']))
            .rowCount === 1,
        'the held export made by another instance',
        15_000,
      );
      const {
        rows: [done],
      } = await db.query<{ attempts: number }>('SELECT attempts FROM workshop_exports WHERE id = $1', [exportId]);
      expect(Number(done!.attempts)).toBe(2);
    }
    const download = await s.facilitator.on(fleet.proxy.url).get('/v1/workshops/{workshop_id}/exports/{id}', {
      params: { path: { workshop_id: exported.id, id: exportId } },
    });
    expect(download.state).toBe('success');
    close(s);
  }, 150_000);
});
