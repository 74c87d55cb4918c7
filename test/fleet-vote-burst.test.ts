import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { openWorkshop, type LiveWorkshop } from '../client-sdk/src/live';
import { startFleet, type Fleet, type FleetInstance } from './helpers/fleet';
import { fleetUser, fleetWorkshop } from './helpers/fleet-scene';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { until } from './helpers/wait';

/*
 * A vote burst across a fleet with an instance killed in its middle (docs/operations.md#several-instances):
 * a few hundred guests, joined through the workshop's link on three instances over one PostgreSQL
 * and one Redis, each give their three points at once, each through one instance, while
 * facilitators' screens follow the workshop through the balancer. One instance is SIGKILLed once
 * a third of the votes are in; a guest whose request died with it sends it again, with the same
 * Idempotency-Key, to another instance, as a client would. Every vote the service acknowledged
 * must be stored, none twice, no guest over the budget, and every screen, reconnected, must show
 * each card's score as the store counts it. Not timed: bench/ measures how fast (issue's audience bench).
 */

const GUESTS = 240;
const BUDGET = 3;
const IDEAS = 8;
const SCREENS = 6;
const KILL_AFTER_ACKNOWLEDGED = Math.round((GUESTS * BUDGET) / 3);

describe.skipIf(testStore !== 'postgres' || !redisAvailable)('a vote burst with an instance killed', () => {
  let redis: TestRedis;
  let databaseUrl: string;
  let fleet: Fleet;
  let db: pg.Pool;

  beforeAll(async () => {
    redis = await startRedis();
    databaseUrl = await freshPostgresDatabase();
    fleet = await startFleet({ size: 3, env: { DATABASE_URL: databaseUrl, REDIS_URL: redis.url } });
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    db.on('error', () => {});
  }, 60_000);

  beforeEach(() => onTestFailed(() => console.log(fleet.logs())));

  afterAll(async () => {
    await db?.end();
    await fleet?.stop();
    await redis?.stop();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  });

  const alive = () =>
    fleet.instances.filter((instance) => instance.run.child.exitCode === null && !instance.run.child.signalCode);

  /**
   * A guest joined through the link's key on `instance`: their token. A join answered 503 (the
   * workshop's row busy with the others' joins) is sent again after its Retry-After, as the page does.
   */
  async function guestJoin(instance: FleetInstance, joinKey: string, n: number): Promise<string> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await fetch(`${instance.url}/v1/workshops/join/guest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ join_key: joinKey, name: `Guest ${n}` }),
      });
      const body = (await res.json()) as { token?: string };
      if (res.status === 201 || res.status === 200) return body.token!;
      if (res.status !== 503) throw new Error(`guest ${n} join: ${res.status} ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
    throw new Error(`guest ${n} never joined`);
  }

  /**
   * Sends one vote to `first`, and while no answer comes back (its instance died), to each
   * instance still up in turn with the same key; a 409 for the key still in use is sent again.
   * Resolves with the vote's id once acknowledged.
   */
  async function vote(first: FleetInstance, token: string, workshopId: string, cardId: string): Promise<string> {
    const key = randomUUID();
    let instance = first;
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        const res = await fetch(`${instance.url}/v1/workshops/${workshopId}/cards/${cardId}/votes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': key },
          body: JSON.stringify({ value: 1 }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { id?: string; code?: string };
        if (res.status === 201) return body.id!;
        if (res.status !== 409 && res.status !== 503)
          throw new Error(`vote refused: ${res.status} ${JSON.stringify(body)}`);
      } catch (err) {
        if ((err as Error).message.startsWith('vote refused')) throw err;
      }
      const others = alive().filter((other) => other !== instance);
      instance = others[attempt % Math.max(others.length, 1)] ?? instance;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('a vote never acknowledged');
  }

  it('counts every acknowledged vote once, keeps each guest within the budget, and every screen agrees with the store', async () => {
    const url = fleet.proxy.url;
    const fay = await fleetUser(url, 'Fay');
    // Room for the guests: the free plan seats 100.
    await db.query("UPDATE users SET plan_name = 'team' WHERE id = $1", [fay.id]);
    const workshop = await fleetWorkshop(url, fay, []);
    const api = fay.on(url);
    await api.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { vote_limit: { positive: BUDGET, negative: 0 } },
    });
    const ideas: string[] = [];
    for (let i = 0; i < IDEAS; i++) {
      const card = await api.post('/v1/workshops/{workshop_id}/cards', {
        ...workshop.inWorkshop,
        body: { type: 'idea', title: `Idea ${i + 1}`, parent: workshop.clusterId },
      });
      ideas.push(card.id);
    }
    const { join_url } = await api.get('/v1/workshops/{workshop_id}/access_code', workshop.inWorkshop);
    const joinKey = new URL(join_url).hash.replace(/^#key=/, '');

    const instances = fleet.instances;
    const tokens = await Promise.all(
      Array.from({ length: GUESTS }, (_, n) => guestJoin(instances[n % instances.length]!, joinKey, n + 1)),
    );
    const live = {
      socket: { transports: ['websocket' as const], reconnectionDelay: 200, reconnectionDelayMax: 1_000 },
    };
    const screens: LiveWorkshop[] = await Promise.all(
      Array.from({ length: SCREENS }, () => openWorkshop(fay.on(url), workshop.id, live)),
    );

    const acknowledged: string[] = [];
    const [, victim] = instances as [FleetInstance, FleetInstance, FleetInstance];
    let killed = false;
    const burst = Promise.all(
      tokens.map(async (token, n) => {
        for (let v = 0; v < BUDGET; v++) {
          const card = ideas[(n * BUDGET + v) % IDEAS]!;
          acknowledged.push(await vote(instances[n % instances.length]!, token, workshop.id, card));
          if (!killed && acknowledged.length >= KILL_AFTER_ACKNOWLEDGED) {
            killed = true;
            victim.run.child.kill('SIGKILL');
          }
        }
      }),
    );
    await burst;
    expect(killed).toBe(true);
    expect(await victim.run.exited).toBeNull();

    // Every acknowledged vote stored, once; nobody over the budget.
    const { rows: stored } = await db.query<{ id: string; user_id: string; card_id: string }>(
      'SELECT id, user_id, card_id FROM votes WHERE workshop_id = $1',
      [workshop.id],
    );
    const storedIds = new Set(stored.map((row) => row.id));
    expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    expect(acknowledged).toHaveLength(GUESTS * BUDGET);
    const perGuest = new Map<string, number>();
    for (const row of stored) perGuest.set(row.user_id, (perGuest.get(row.user_id) ?? 0) + 1);
    expect(Math.max(...perGuest.values())).toBeLessThanOrEqual(BUDGET);

    // Every screen, back on the instances still up, shows the store's score on every card.
    const scores = new Map(ideas.map((id) => [id, 0]));
    for (const row of stored) scores.set(row.card_id, scores.get(row.card_id)! + 1);
    const {
      rows: [last],
    } = await db.query<{ seq: string }>('SELECT max(seq) AS seq FROM events WHERE workshop_id = $1', [workshop.id]);
    for (const [i, screen] of screens.entries()) {
      await until(
        () => screen.state.status === 'live' && screen.state.seq === Number(last!.seq),
        `screen ${i} live at seq ${last!.seq} (${screen.state.status} at ${screen.state.seq})`,
        20_000,
      );
      const shown = new Map(
        screen.state.cards.filter((card) => scores.has(card.id)).map((card) => [card.id, card.summary.score]),
      );
      expect(shown, `screen ${i}`).toEqual(scores);
    }
    for (const screen of screens) screen.close();
  }, 180_000);
});
