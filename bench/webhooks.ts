/**
 * Webhooks (docs/integrations.md#webhooks), two figures:
 *
 * - **What a write that emits webhooks costs**: three servers side by side in one run, each with
 *   production's configuration over a fresh database, each with one organization of 20 workshops:
 *   one without endpoints; one with 3 endpoints listening to every event (a local receiver
 *   answering 204 at once) that writes the outbox but leaves sending it to others (`writes
 *   alone`); one with the same endpoints that also sends the 3 deliveries of each write (`writes
 *   and sending`). autocannon renames the workshops (`PUT /v1/workshops/:id`, a `workshop.updated`
 *   each: one outbox message in the write's transaction) with 50 connections, then votes (a write
 *   that emits none), round after round (`BENCH_ROUNDS`, 3; `BENCH_DURATION` s each, 5).
 *   Target: the writes alone at ≥ 0.90 of the rate without endpoints (≤ 10 % more cost per write).
 * - **Draining the outbox**: 1,000 deliveries queued while the receiver holds each workshop's
 *   first one (so the rest wait behind it in order), then let go: the time until the receiver has
 *   all 1,000. Spread over 10 workshops (target under 10 s), and in one workshop (one lane, each
 *   delivery after the one before it), for the record.
 *
 * `--store=postgres` runs both on a throwaway PostgreSQL cluster instead of SQLite.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../scripts/postgres-cluster';
import { startBenchServer, stopAfter, type BenchServer } from './_server';

stopAfter('webhooks', 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const WORKSHOPS = 20;
const store = process.argv.find((arg) => arg.startsWith('--store='))?.split('=')[1] ?? 'sqlite';
process.env.WEBHOOK_ALLOW_PRIVATE = '1';

/** A receiver answering 204; while `hold` is set, the first delivery of each workshop waits for its release. */
function startReceiver() {
  let received = 0;
  const heldLanes = new Set<string>();
  let holding = false;
  let release: () => void = () => {};
  let released = Promise.resolve();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { workshop?: { id: string } } };
      const lane = body.data.workshop?.id ?? '';
      const answer = () => {
        received += 1;
        response.writeHead(204).end();
      };
      if (holding && !heldLanes.has(lane)) {
        heldLanes.add(lane);
        void released.then(answer);
      } else answer();
    });
  });
  return new Promise<{
    url: string;
    received: () => number;
    hold: () => void;
    letGo: () => void;
    close: () => void;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        received: () => received,
        hold: () => {
          holding = true;
          heldLanes.clear();
          released = new Promise((done) => (release = done));
        },
        letGo: () => {
          holding = false;
          release();
        },
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

interface Scene {
  label: string;
  server: BenchServer;
  token: string;
  workshopIds: string[];
  cardIds: string[];
}

async function seed(label: string, server: BenchServer, endpoints: number, url: string): Promise<Scene> {
  const { token } = await server.signup('Admin');
  const organization = await server.api('POST', '/v1/organizations', token, { name: 'Bench' });
  for (let i = 0; i < endpoints; i++)
    await server.api('POST', `/v1/organizations/${organization.id}/webhooks`, token, { url, events: ['*'] });
  const workshopIds: string[] = [];
  const cardIds: string[] = [];
  for (let i = 0; i < WORKSHOPS; i++) {
    const workshop = await server.api('POST', `/v1/organizations/${organization.id}/workshops`, token, {
      title: `w${i}`,
    });
    await server.api('PUT', `/v1/workshops/${workshop.id}`, token, {
      vote_limit: { positive: -1, negative: -1, max_positive: 1_000_000, max_negative: 1_000_000 },
    });
    const cluster = await server.api('POST', `/v1/workshops/${workshop.id}/cards`, token, {
      type: 'cluster',
      title: 'c',
    });
    workshopIds.push(workshop.id);
    cardIds.push(cluster.id);
  }
  return { label, server, token, workshopIds, cardIds };
}

/** Requests a second answered 2xx, and the median latency, renaming (or voting) across the workshops. */
async function measure(scene: Scene, kind: 'rename' | 'vote'): Promise<{ okPerSec: number; p50: number }> {
  let n = 0;
  const result = await autocannon({
    url: scene.server.url,
    connections: 50,
    duration: DURATION_S,
    requests: [
      {
        setupRequest: (request) => {
          const i = n++ % WORKSHOPS;
          const id = scene.workshopIds[i]!;
          return kind === 'rename'
            ? {
                ...request,
                method: 'PUT',
                path: `/v1/workshops/${id}`,
                body: JSON.stringify({ title: `title ${n}` }),
              }
            : {
                ...request,
                method: 'POST',
                path: `/v1/workshops/${id}/cards/${scene.cardIds[i]}/votes`,
                body: JSON.stringify({ value: 1 }),
              };
        },
        headers: { authorization: `Bearer ${scene.token}`, 'content-type': 'application/json' },
      },
    ],
  });
  return { okPerSec: result['2xx'] / (result.duration || DURATION_S), p50: result.latency.p50 };
}

/** Waits until the receiver has had nothing for half a second. */
async function quiet(receiver: { received: () => number }) {
  for (let last = -1; receiver.received() !== last;) {
    last = receiver.received();
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function drain(server: BenchServer, receiver: Awaited<ReturnType<typeof startReceiver>>, lanes: number) {
  const { token } = await server.signup('Drainer');
  const organization = await server.api('POST', '/v1/organizations', token, { name: 'Drain' });
  await server.api('POST', `/v1/organizations/${organization.id}/webhooks`, token, {
    url: receiver.url,
    events: ['workshop.updated'],
  });
  const ids: string[] = [];
  for (let i = 0; i < lanes; i++)
    ids.push(
      (await server.api('POST', `/v1/organizations/${organization.id}/workshops`, token, { title: `d${i}` })).id,
    );
  receiver.hold();
  const before = receiver.received();
  const perLane = 1_000 / lanes;
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < perLane; i++) await server.api('PUT', `/v1/workshops/${id}`, token, { title: `t${i}` });
    }),
  );
  const started = performance.now();
  receiver.letGo();
  while (receiver.received() - before < 1_000) await new Promise((resolve) => setTimeout(resolve, 5));
  return (performance.now() - started) / 1000;
}

async function postgresUrl(cluster: PostgresCluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return `${cluster.baseUrl}${name}`;
}

const receiver = await startReceiver();
const cluster = store === 'postgres' ? await startPostgresCluster(['max_connections=200']) : undefined;
const options = async (name: string) => (cluster ? { databaseUrl: await postgresUrl(cluster, name) } : {});
const servers: BenchServer[] = [];
try {
  const without = await seed('no endpoint', await startBenchServer(await options('bench_plain')), 0, receiver.url);
  servers.push(without.server);
  const written = await seed(
    'writes alone',
    await startBenchServer({ ...(await options('bench_written')), env: { BENCH_SENDS_WEBHOOKS: '0' } }),
    3,
    receiver.url,
  );
  servers.push(written.server);
  const withThree = await seed(
    'writes and sending',
    await startBenchServer(await options('bench_hooks')),
    3,
    receiver.url,
  );
  servers.push(withThree.server);
  const rows = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of ['rename', 'vote'] as const) {
      // Each round in the other order, so neither server always goes first.
      const scenes = [without, written, withThree];
      for (const scene of round % 2 ? scenes : scenes.reverse()) {
        const { okPerSec, p50 } = await measure(scene, kind);
        // The deliveries a load queued are sent before the next load: they would weigh on it.
        await quiet(receiver);
        const key = `${kind} ${scene.label}`;
        rows.set(key, [...(rows.get(key) ?? []), okPerSec]);
        console.log(`round ${round}  ${key.padEnd(24)} ${okPerSec.toFixed(0).padStart(6)} ok/s  p50 ${p50} ms`);
      }
    }
  }
  const rate = (key: string) => median(rows.get(key)!);
  const base = rate('rename no endpoint');
  const writeRatio = rate('rename writes alone') / base;
  const sendRatio = rate('rename writes and sending') / base;
  const voteRatio = rate('vote writes and sending') / rate('vote no endpoint');
  console.log(`\nmedians of ${ROUNDS} rounds (${store}):`);
  console.log(
    `  renames, each a workshop.updated heard by 3 endpoints, against ${base.toFixed(0)} ok/s without endpoints:`,
  );
  console.log(
    `    writes alone ${writeRatio.toFixed(2)} (target ≥ 0.90) ${writeRatio >= 0.9 ? 'ok' : 'MISSED'}; writes and sending their 3 deliveries each on the same cores ${sendRatio.toFixed(2)}`,
  );
  console.log(
    `  votes (no webhook event), with the endpoints and the sender: ratio ${voteRatio.toFixed(2)} (${rate('vote writes and sending').toFixed(0)} / ${rate('vote no endpoint').toFixed(0)} ok/s)`,
  );

  const spread = await drain(withThree.server, receiver, 10);
  const oneLane = await drain(withThree.server, receiver, 1);
  console.log(
    `  1,000 queued deliveries drained: over 10 workshops ${spread.toFixed(2)} s (target < 10 s) ${spread < 10 ? 'ok' : 'MISSED'}; in one workshop ${oneLane.toFixed(2)} s`,
  );
} finally {
  for (const server of servers) await server.stop();
  receiver.close();
  cluster?.stop();
}
