/**
 * `npm run bench -- yjs`: a workshop document holding 5,000 card placements after 100,000 updates.
 * The updates go through the real sync endpoint (stored one by one with their SQL copy, compacted
 * as the server goes); then the time to load the document from the database is measured after
 * compaction, and against the same history stored uncompacted (the baseline, same run).
 *
 * Two histories: `drags` (50 clients, each move a drag of 20 steps of one card, clients up to date
 * with each other, as on a live canvas) and `scattered` (every update moves a different random
 * card: the worst case, since no two consecutive updates touch the same card).
 *
 * With the document not loaded, it then times what should not wait for the load: REST reads of
 * the zones and card positions, and a new y-websocket client's first sync (connect → step 2).
 * Those clients run in a child process (bench/_yjs-client.ts), since the server loads the document
 * right after answering, which would hold back a client on its event loop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CollabEngine } from '../src/collab/engine';
import { testConfig, type Config } from '../src/config';
import { ClientProcess, firstSync, syncFromEmpty, syncUrlOf } from './_yjs-client';
import {
  CARDS,
  createBoard,
  history,
  ingest,
  median,
  seed,
  snapshotBytesOf,
  storedUpdateCount,
  storedXOf,
  storeUncompacted,
  timeLoads,
  timeStorageOnly,
  type Workload,
} from './_yjs-document';
import { printSummary, printWorkload, type ColdFigures, type Figures, type Verdicts } from './_yjs-report';

/** Cold reads and first syncs timed per workload. */
const COLD_RUNS = 7;

/** The service itself, imported when first used (the client process, bench/_yjs-client.ts, needs none of it). */
async function service() {
  const [{ createDeps }, { createServer }, { signup }] = await Promise.all([
    import('../src/create-deps'),
    import('../src/server'),
    import('../src/modules/auth/service'),
  ]);
  return { createDeps, createServer, signup };
}

/** Renames the workshop, so that its card list is not served from the answers cached until it changes. */
async function rename(workshopUrl: string, token: string, run: number) {
  const renamed = await fetch(workshopUrl, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Bench ${run}` }),
  });
  if (renamed.status !== 200)
    throw new Error(`could not rename the workshop: ${renamed.status} ${await renamed.text()}`);
}

/**
 * Medians over `COLD_RUNS` of REST reads and first syncs on the document not loaded, timed from a
 * client process, on a server of its own over the same file (closing a server closes its
 * documents' service, which from then on compacts every document it unloads). Before each run the
 * workshop is renamed, so that the card list is not served from the answers cached until the
 * workshop changes. After each first sync the server loads the document; it is unloaded again.
 */
async function timeColdUse(config: Config, workshopId: string, token: string): Promise<ColdFigures> {
  const { createDeps, createServer } = await service();
  const deps = await createDeps(config);
  const engine = deps.collab as CollabEngine;
  const server = await createServer(deps, { port: 0, hostname: '127.0.0.1' });
  const client = new ClientProcess();
  const workshopUrl = `${server.url}/v1/workshops/${workshopId}`;
  const syncUrl = syncUrlOf(server.url, workshopId, token);
  const times = {
    canvas: [] as number[],
    cards: [] as number[],
    firstSync: [] as number[],
    loadedSync: [] as number[],
  };
  let readsLoaded = false;
  let syncBytes = 0;
  try {
    for (let run = 0; run < COLD_RUNS; run++) {
      await engine.unloadNow(workshopId, { compact: false });
      await rename(workshopUrl, token, run);
      times.canvas.push((await client.ask({ kind: 'get', url: `${workshopUrl}/canvas`, token })).ms);
      times.cards.push((await client.ask({ kind: 'get', url: `${workshopUrl}/cards`, token })).ms);
      readsLoaded ||= engine.loadedDocuments().includes(workshopId);
      const first = await firstSync(engine, client, workshopId, syncUrl);
      times.firstSync.push(first.ms);
      syncBytes = first.bytes;
      times.loadedSync.push((await client.ask({ kind: 'sync', url: syncUrl })).ms);
      await client.ask({ kind: 'close' });
    }
  } finally {
    client.stop();
    await server.close();
    await deps.database.close();
  }
  return {
    canvas: median(times.canvas),
    cards: median(times.cards),
    readsLoaded,
    firstSync: median(times.firstSync),
    syncBytes,
    loadedSync: median(times.loadedSync),
  };
}

/**
 * The first sync also answered from the updates stored after the snapshot (merged), as when
 * another instance holds the document loaded and nobody compacted it yet: 3 runs.
 */
async function timeFirstSyncsWithUpdates(engine: CollabEngine, syncUrl: string, workshopId: string) {
  const client = new ClientProcess();
  const withUpdates: number[] = [];
  try {
    for (let run = 0; run < 3; run++) withUpdates.push((await firstSync(engine, client, workshopId, syncUrl)).ms);
  } finally {
    client.stop();
  }
  return withUpdates;
}

/** The workshop, and its history made by the clients and stored through /v1/sync, on a server of its own. */
async function populate(config: Config, workload: Workload) {
  const { createDeps, createServer, signup } = await service();
  const deps = await createDeps(config);
  const server = await createServer(deps, { port: 0, hostname: '127.0.0.1' });
  const { token, user } = await signup(deps, {
    email: `bench-${workload}@example.test`,
    password: 'bench password',
    name: 'Bench',
  });
  const { workshopId, cardIds } = await seed(deps, user.id);
  await createBoard(server.url, workshopId, token);
  const syncUrl = syncUrlOf(server.url, workshopId, token);
  const { ws, initial } = await syncFromEmpty(syncUrl);

  const generating = performance.now();
  const { updates, movedCard } = history(workload, initial, cardIds);
  const generateMs = performance.now() - generating;
  const storedX = storedXOf(deps);
  const started = performance.now();
  await ingest(ws, updates, movedCard, storedX);
  const ingestMs = performance.now() - started;
  const stored = await storedUpdateCount(deps, workshopId);
  ws.close();
  const withUpdates = await timeFirstSyncsWithUpdates(deps.collab as CollabEngine, syncUrl, workshopId);
  await server.close();
  await deps.database.close();
  return { token, workshopId, history: [initial, ...updates], generateMs, ingestMs, stored, withUpdates };
}

/** The stored document loaded after compaction, used not loaded, then loaded uncompacted. */
async function measure(config: Config, populated: Awaited<ReturnType<typeof populate>>): Promise<Figures> {
  const { token, workshopId } = populated;
  const { createDeps } = await service();
  const deps = await createDeps(config);
  const engine = deps.collab as CollabEngine;
  const snapshotBytes = await snapshotBytesOf(deps, workshopId);
  const compacted = await timeLoads(engine, workshopId, 7);
  const compactedStorage = await timeStorageOnly(deps, workshopId, 7);
  const cold = await timeColdUse(config, workshopId, token);

  // The same history, stored as it came: the initial state and every update, no snapshot.
  await storeUncompacted(deps, workshopId, populated.history);
  const baseline = await timeLoads(engine, workshopId, 3);
  const baselineStorage = await timeStorageOnly(deps, workshopId, 3);
  const same = JSON.stringify([...baseline.placements].sort()) === JSON.stringify([...compacted.placements].sort());
  await engine.close();
  await deps.database.close();
  return {
    generateMs: populated.generateMs,
    ingestMs: populated.ingestMs,
    stored: populated.stored,
    withUpdates: median(populated.withUpdates),
    snapshotBytes,
    placements: compacted.placements.size,
    same,
    compacted: compacted.median,
    compactedStorage,
    baseline: baseline.median,
    baselineStorage,
    cold,
  };
}

async function run(workload: Workload): Promise<Verdicts> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-bench-yjs-'));
  const config = testConfig({ databasePath: join(dir, 'bench.db'), filesDir: join(dir, 'files') });
  try {
    const figures = await measure(config, await populate(config, workload));
    printWorkload(workload, figures);
    if (!figures.same || figures.placements !== CARDS)
      throw new Error('the compacted document does not match its history');
    if (figures.cold.readsLoaded) throw new Error('a REST read loaded the document');
    const { cold } = figures;
    return { load: figures.compacted, read: Math.max(cold.canvas, cold.cards), firstSync: cold.firstSync };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Array<[Workload, Verdicts]> = [];
for (const workload of ['drags', 'scattered'] as const) results.push([workload, await run(workload)]);
printSummary(results);
process.exit(0);
