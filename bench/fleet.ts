/**
 * `npm run bench -- fleet`: what more instances of the service do to votes and to fan-out, on
 * PostgreSQL with Redis, all on this machine.
 *
 * For 1, 2 and 3 instances in turn (the production entry point, `src/main.ts` configured by
 * environment, NODE_ENV=production, one fresh PostgreSQL database each time, one redis-server,
 * one SECRET), it measures:
 * - votes: 50 voters, each a member of 20 workshops of 10 cards, POST …/votes over 60 connections
 *   spread evenly over the instances (autocannon, `BENCH_DURATION` seconds, median of
 *   `BENCH_ROUNDS` rounds): accepted votes per second for the whole fleet, and p99;
 * - fan-out: 1,000 participants of one workshop connected with socket.io-client, spread evenly
 *   over the instances (client processes over loopback); a facilitator changes the current step
 *   through REST, each change sent to the next instance in turn; the time from sending the request
 *   until every client got `step:changed`, p50 and p99 over `FLEET_ROUNDS` changes. Events reach
 *   the clients of other instances through the Redis adapter.
 * Printed as ratios to one instance. Goal: the fan-out p99 across instances ≤ 1.5× one instance's.
 *
 * Everything shares this machine's cores (the instances, PostgreSQL, Redis, the load generator and
 * the client processes), so a second instance adds processes, not CPU: the votes ratio shows what
 * coordination costs (the Redis adapter's publishing, connections, cross-process locks), not what
 * separate machines would gain. See docs/performance.md#a-fleet for what the figures predict.
 *
 * Knobs (environment): FLEET_SIZES (default "1,2,3"), FLEET_CLIENTS (default 1000), FLEET_ROUNDS
 * (step changes measured, default 100), FANOUT_PROCESSES (client processes, default 4),
 * BENCH_DURATION (seconds per vote round, 5), BENCH_ROUNDS (vote rounds, 3).
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { startPostgresCluster } from '../scripts/postgres-cluster';
import { openPostgres } from '../src/db/postgres';
import { startFleet, type Fleet } from '../test/helpers/fleet';
import { startRedis } from '../test/helpers/redis';
import { broadcastRound, connectClients, percentile, startClientProcesses } from './_fanout-processes';
import { inParallel, seedParticipants } from './_fanout-seed';
import { callApi, stopAfter } from './_server';

const SIZES = (process.env.FLEET_SIZES ?? '1,2,3').split(',').map(Number);
const CLIENTS = Number(process.env.FLEET_CLIENTS ?? 1_000);
const ROUNDS = Number(process.env.FLEET_ROUNDS ?? 100);
const CLIENT_PROCESSES = Number(process.env.FANOUT_PROCESSES ?? 4);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const VOTE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VOTERS = 50;
const VOTE_CONNECTIONS = 60;
const WORKSHOPS = 20;
const WARMUP_ROUNDS = 5;
const SETTLE_MS = 3_000;
const TARGET_FANOUT_P99_RATIO = 1.5;

stopAfter('fleet', 15);

/** Every user may put many points on one card, so the vote load measures writes, not refusals. */
const UNLIMITED = { vote_limit: { positive: -1, negative: -1, max_positive: 100_000, max_negative: 100_000 } };

/** The settings of every instance beyond the stores: limits meant for people, off for a load generator on one address. */
const LIMITS_OFF = {
  NODE_ENV: 'production',
  JOIN_ATTEMPTS_PER_MINUTE: '0',
  JOIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '0',
  AUTH_ATTEMPTS_PER_MINUTE: '0',
  SIGNUPS_PER_ADDRESS_PER_MINUTE: '0',
  JOINS_PER_SOCKET_PER_10_SECONDS: '0',
  JOINS_PER_USER_PER_MINUTE: '0',
  DATABASE_POOL_SIZE: '10',
};

interface Measured {
  size: number;
  votesPerSec: number;
  votesP99: number;
  non2xx: number;
  fanoutP50: number;
  fanoutP99: number;
}

const median = (values: number[]) => percentile(values, 50);

async function seed(fleet: Fleet, databaseUrl: string) {
  const first = fleet.instances[0]!.url;
  const api = (method: string, path: string, token?: string, body?: unknown) =>
    callApi(first, method, path, token, body);
  const signup = await api('POST', '/v1/auth/signup', undefined, {
    email: `fay-${Date.now()}@example.test`,
    password: 'bench password',
    name: 'Fay',
  });
  const facilitator: string = signup.token;

  const database = await openPostgres(databaseUrl, { checked: false, poolSize: 2 });
  let tokens: string[];
  try {
    tokens = await seedParticipants(database, CLIENTS);
  } finally {
    await database.close();
  }
  // The free plan's 100 participants would stop the crowd at the door.
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`UPDATE users SET plan_name = 'enterprise' WHERE id = $1`, [signup.user.id]);
  await admin.end();

  const workshops: Array<{ id: string; cardIds: string[] }> = [];
  for (let w = 0; w < WORKSHOPS; w++) {
    const workshop = await api('POST', '/v1/workshops', facilitator, { title: `Voting ${w}` });
    await api('PUT', `/v1/workshops/${workshop.id}`, facilitator, UNLIMITED);
    const cardIds: string[] = [];
    for (let c = 0; c < 10; c++)
      cardIds.push(
        (
          await api('POST', `/v1/workshops/${workshop.id}/cards`, facilitator, {
            type: 'cluster',
            title: `Cluster ${c}`,
          })
        ).id,
      );
    const { access_code } = await api('GET', `/v1/workshops/${workshop.id}/access_code`, facilitator);
    await inParallel(tokens.slice(0, VOTERS), 16, (voter) => api('POST', '/v1/workshops/join', voter, { access_code }));
    workshops.push({ id: workshop.id, cardIds });
  }

  const crowd = await api('POST', '/v1/workshops', facilitator, { title: 'Fan-out' });
  await api('PUT', `/v1/workshops/${crowd.id}`, facilitator, { change_step_notifications: false });
  const steps = [
    await api('POST', `/v1/workshops/${crowd.id}/steps`, facilitator, {
      name: 'Collect',
      instructions: 'Write one idea per card.',
    }),
    await api('POST', `/v1/workshops/${crowd.id}/steps`, facilitator, {
      name: 'Vote',
      instructions: 'Three votes each.',
      view: { sort: 'score' },
    }),
  ];
  const { access_code } = await api('GET', `/v1/workshops/${crowd.id}/access_code`, facilitator);
  await inParallel(tokens, 16, (participant) => api('POST', '/v1/workshops/join', participant, { access_code }));
  return {
    facilitator,
    voters: tokens.slice(0, VOTERS),
    workshops,
    crowd: { id: crowd.id as string, steps, participants: tokens },
  };
}

type Seeded = Awaited<ReturnType<typeof seed>>;

/** One round of votes over every instance at once; the fleet's accepted votes per second and p99. */
async function voteRound(fleet: Fleet, seeded: Seeded) {
  const size = fleet.instances.length;
  const results = await Promise.all(
    fleet.instances.map((instance, k) => {
      let next = 0;
      const connections = VOTE_CONNECTIONS / size;
      return autocannon({
        url: instance.url,
        connections,
        duration: DURATION_S,
        setupClient(client) {
          // Connections numbered across the fleet, so each voter and workshop is used alike at every size.
          const connection = k * connections + next++;
          const target = seeded.workshops[connection % WORKSHOPS]!;
          client.setHeaders({
            authorization: `Bearer ${seeded.voters[connection % VOTERS]}`,
            'content-type': 'application/json',
          });
          client.setRequests([
            {
              method: 'POST',
              setupRequest(request) {
                const card = target.cardIds[Math.floor(Math.random() * target.cardIds.length)];
                return {
                  ...request,
                  path: `/v1/workshops/${target.id}/cards/${card}/votes`,
                  body: JSON.stringify({ value: 1 }),
                };
              },
            },
          ]);
        },
      });
    }),
  );
  return {
    perSec: results.reduce((sum, r) => sum + r['2xx'] / (r.duration || DURATION_S), 0),
    // The fleet's p99 is at least the worst instance's.
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

async function measure(size: number, databaseUrl: string, redisUrl: string): Promise<Measured> {
  const fleet = await startFleet({ size, env: { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, ...LIMITS_OFF } });
  const clients = await startClientProcesses(CLIENT_PROCESSES);
  try {
    const seeded = await seed(fleet, databaseUrl);

    const rounds = [];
    await voteRound(fleet, seeded); // warm-up
    for (let r = 0; r < VOTE_ROUNDS; r++) rounds.push(await voteRound(fleet, seeded));

    // Participant i on instance i mod size: an even spread, as a balancer gives.
    const group = `fleet-${size}`;
    for (const [k, instance] of fleet.instances.entries()) {
      const share = seeded.crowd.participants.filter((_, i) => i % size === k);
      await connectClients(clients, group, instance.url, seeded.crowd.id, share, 0);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const times: number[] = [];
    for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
      const step = seeded.crowd.steps[(i + 1) % 2];
      const through = fleet.instances[i % size]!.url;
      const time = await broadcastRound(clients, group, i, () =>
        callApi(through, 'PUT', `/v1/workshops/${seeded.crowd.id}`, seeded.facilitator, { current_step_id: step.id }),
      );
      if (i >= WARMUP_ROUNDS) times.push(time);
    }
    return {
      size,
      votesPerSec: median(rounds.map((r) => r.perSec)),
      votesP99: median(rounds.map((r) => r.p99)),
      non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
      fanoutP50: percentile(times, 50),
      fanoutP99: percentile(times, 99),
    };
  } catch (err) {
    console.error(fleet.logs());
    throw err;
  } finally {
    await Promise.all(clients.map((c) => c.stop()));
    await fleet.stop();
  }
}

const cluster = await startPostgresCluster(['max_connections=200']);
const redis = await startRedis();
const results: Measured[] = [];
try {
  const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
  await admin.connect();
  for (const size of SIZES) {
    await admin.query(`CREATE DATABASE fleet_${size}`);
    // A fresh Redis too, so no adapter channel or counter of the last fleet is left.
    await redis.stop();
    await redis.start();
    results.push(await measure(size, `${cluster.baseUrl}fleet_${size}`, redis.url));
  }
  await admin.end();
} finally {
  await redis.stop();
  cluster.stop();
}

const one = results.find((r) => r.size === 1) ?? results[0]!;
const fixed = (value: number, digits = 0) => value.toFixed(digits);
console.log(
  `\n${VOTE_CONNECTIONS} vote connections over ${WORKSHOPS} workshops (median of ${VOTE_ROUNDS} × ${DURATION_S} s); ${CLIENTS} clients, ${ROUNDS} step changes`,
);
console.log('instances   votes/s   p99 ms   × one   | fan-out p50 ms   p99 ms   p99 × one');
let missed = false;
for (const r of results) {
  const ratio = r.fanoutP99 / one.fanoutP99;
  if (r.size > 1 && ratio > TARGET_FANOUT_P99_RATIO) missed = true;
  console.log(
    `${String(r.size).padStart(9)}   ${fixed(r.votesPerSec).padStart(7)}   ${fixed(r.votesP99).padStart(6)}   ${fixed(r.votesPerSec / one.votesPerSec, 2).padStart(5)}   | ${fixed(r.fanoutP50, 1).padStart(14)}   ${fixed(r.fanoutP99, 1).padStart(6)}   ${fixed(ratio, 2).padStart(9)}${r.non2xx ? `   (${r.non2xx} votes refused)` : ''}`,
  );
}
console.log(`fan-out p99 across instances ≤ ${TARGET_FANOUT_P99_RATIO}× one instance's: ${missed ? 'MISSED' : 'ok'}`);
process.exit(0);
