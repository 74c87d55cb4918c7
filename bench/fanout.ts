/**
 * `npm run bench -- fanout`: how long a step change takes to reach every client of a crowded
 * workshop, and what an idle client costs the server.
 *
 * For N = 1,000 then 5,000, N participants join one workshop through the API and connect with
 * socket.io-client from child processes over loopback. A facilitator changes the current step
 * through REST; for each change we take the time from sending the request until every client got
 * `step:changed` (the clients stamp receipts with the machine's monotonic clock). The ceiling is a
 * bare Socket.IO server with no application code, holding the same clients and broadcasting the
 * same two packets a step change produces (`step:changed` and `view:changed`, same payloads),
 * triggered by an HTTP request. Rounds alternate between the two servers so drift hits both alike.
 * Memory per idle client is the growth of the server process's memory (after a full GC) from half
 * of the clients connected to all of them, each time after they joined and presence settled: RSS
 * (less the heap pages V8 holds committed but free) and V8 heap plus external memory.
 *
 * Knobs (environment): FANOUT_SIZES (default "1000,5000"), FANOUT_ROUNDS (step changes measured per
 * size; default 150 at 1,000 and 100 at 5,000), FANOUT_PROCESSES (client processes, default 4),
 * FANOUT_SAMPLES=1 (print every sample).
 *
 * The workshop runs with `change_step_notifications: false`: with it on, each step change also
 * writes and delivers one notification per participant, which is a different cost than the broadcast.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../src/db/sqlite';
import {
  broadcastRound,
  connectClients,
  percentile,
  startClientProcesses,
  startServer,
  type Child,
  type Memory,
} from './_fanout-processes';
import { inParallel, seedParticipants } from './_fanout-seed';
import { callApi, stopAfter } from './_server';

const SIZES = (process.env.FANOUT_SIZES ?? '1000,5000').split(',').map(Number);
const CLIENT_PROCESSES = Number(process.env.FANOUT_PROCESSES ?? 4);
const WARMUP_ROUNDS = 5;
/** Enough step changes that p99 is not just the slowest one. */
const roundsFor = (size: number) => Number(process.env.FANOUT_ROUNDS ?? (size <= 1_000 ? 150 : 100));
/** Presence in a 5,000-socket room is recounted at most every 5 s; idle means after that. */
const SETTLE_MS = 6_000;
const TARGET_P99_RATIO = 1.25;
const TARGET_KB_PER_CLIENT = 50;

stopAfter('fanout', 5);

const api = callApi;

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(1);

/**
 * Connects every token's client; memory per client is the server's growth from half of them to all
 * of them (after a full GC each time), so allocator noise from the setup does not count.
 */
async function connectAll(
  server: Child,
  clients: Child[],
  group: string,
  url: string,
  workshopId: string,
  tokens: string[],
) {
  const half = Math.floor(tokens.length / 2);
  const started = Date.now();
  await connectClients(clients, group, url, workshopId, tokens.slice(0, half), SETTLE_MS);
  const before = await server.memory();
  await connectClients(clients, group, url, workshopId, tokens.slice(half), SETTLE_MS);
  const after: Memory = await server.memory();
  const added = tokens.length - half;
  // V8 keeps freed heap pages committed (and grows its young generation under load), which moves RSS
  // by megabytes either way between two readings; those pages are left out.
  const resident = (m: Memory) => m.rss - (m.heapTotal - m.heapUsed);
  return {
    connectMs: Date.now() - started - 2 * SETTLE_MS,
    rss: (resident(after) - resident(before)) / added,
    heap: (after.heapUsed + after.external - before.heapUsed - before.external) / added,
  };
}

async function measure(size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-fanout-'));
  const databasePath = join(dir, 'bench.db');
  const app = await startServer('server.ts', 'app', { DATABASE_PATH: databasePath, FILES_DIR: join(dir, 'files') });
  const bare = await startServer('_fanout-bare.ts', 'bare');
  const clients = await startClientProcesses(CLIENT_PROCESSES);
  try {
    const signup = await api(app.url, 'POST', '/v1/auth/signup', undefined, {
      email: `fay-${Date.now()}@example.test`,
      password: 'bench password',
      name: 'Fay',
    });
    const token: string = signup.token;
    const workshop = await api(app.url, 'POST', '/v1/workshops', token, { title: `Fan-out ${size}` });
    await api(app.url, 'PUT', `/v1/workshops/${workshop.id}`, token, { change_step_notifications: false });
    const steps = [
      await api(app.url, 'POST', `/v1/workshops/${workshop.id}/steps`, token, {
        name: 'Collect',
        instructions: 'Write one idea per card.',
      }),
      await api(app.url, 'POST', `/v1/workshops/${workshop.id}/steps`, token, {
        name: 'Vote',
        instructions: 'Three votes each.',
        view: { sort: 'score' },
      }),
    ];
    const { access_code } = await api(app.url, 'GET', `/v1/workshops/${workshop.id}/access_code`, token);
    const database = openSqlite(databasePath, { checked: true });
    const tokens = await seedParticipants(database, size).finally(() => database.close());
    await inParallel(tokens, 16, (participant) =>
      api(app.url, 'POST', '/v1/workshops/join', participant, { access_code }),
    );

    const appMemory = await connectAll(app.child, clients, 'app', app.url, workshop.id, tokens);
    const bareMemory = await connectAll(bare.child, clients, 'bare', bare.url, 'bench-room', tokens);

    const appTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < WARMUP_ROUNDS + roundsFor(size); i++) {
      const step = steps[(i + 1) % 2];
      const head = { seq: 1000 + i, workshop_id: 'bench-room' };
      const events = [
        ['step:changed', { ...head, step }],
        ['view:changed', { ...head, view: step.view, force_sync: false }],
      ];
      const appRound = () =>
        broadcastRound(clients, 'app', i, () =>
          api(app.url, 'PUT', `/v1/workshops/${workshop.id}`, token, { current_step_id: step.id }),
        );
      const bareRound = () =>
        broadcastRound(clients, 'bare', i, () =>
          fetch(`${bare.url}/broadcast`, { method: 'POST', body: JSON.stringify({ room: 'bench-room', events }) }),
        );
      // Which server goes first alternates, so neither always runs right after the other.
      let appTime: number;
      let bareTime: number;
      if (i % 2 === 0) {
        appTime = await appRound();
        bareTime = await bareRound();
      } else {
        bareTime = await bareRound();
        appTime = await appRound();
      }
      if (i >= WARMUP_ROUNDS) {
        appTimes.push(appTime);
        bareTimes.push(bareTime);
      }
    }
    return { size, appTimes, bareTimes, appMemory, bareMemory };
  } finally {
    await Promise.all([...clients, app.child, bare.child].map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `fan-out of step:changed (after ${WARMUP_ROUNDS} warm-up changes), clients in ${CLIENT_PROCESSES} processes`,
);
let failed = false;
for (const size of SIZES) {
  const r = await measure(size);
  const [appP50, appP99, bareP50, bareP99] = [
    percentile(r.appTimes, 50),
    percentile(r.appTimes, 99),
    percentile(r.bareTimes, 50),
    percentile(r.bareTimes, 99),
  ];
  const ratio = appP99 / bareP99;
  const memoryOk = Math.max(r.appMemory.rss, r.appMemory.heap) / 1024 <= TARGET_KB_PER_CLIENT;
  failed ||= ratio > TARGET_P99_RATIO || !memoryOk;
  console.log(`\nN = ${size.toLocaleString('en')}, ${r.appTimes.length} step changes`);
  console.log(
    `  app  (REST step change): p50 ${ms(appP50)} ms, p99 ${ms(appP99)} ms; connected in ${r.appMemory.connectMs} ms`,
  );
  console.log(
    `  bare (Socket.IO only):   p50 ${ms(bareP50)} ms, p99 ${ms(bareP99)} ms; connected in ${r.bareMemory.connectMs} ms`,
  );
  console.log(
    `  ratio app/bare: p50 ${(appP50 / bareP50).toFixed(2)}x, p99 ${ratio.toFixed(2)}x (target ≤ ${TARGET_P99_RATIO}x) ${ratio <= TARGET_P99_RATIO ? 'ok' : 'MISSED'}`,
  );
  if (process.env.FANOUT_SAMPLES)
    console.log(`  app samples: ${r.appTimes.map(ms).join(' ')}\n  bare samples: ${r.bareTimes.map(ms).join(' ')}`);
  console.log(
    `  memory per idle client: app ${kb(r.appMemory.rss)} KB resident, ${kb(r.appMemory.heap)} KB heap+external; bare ${kb(r.bareMemory.rss)} KB resident, ${kb(r.bareMemory.heap)} KB heap+external (target ≤ ${TARGET_KB_PER_CLIENT} KB) ${memoryOk ? 'ok' : 'MISSED'}`,
  );
}
if (failed) console.log('\nsome targets were missed (figures above)');
process.exit(0);
