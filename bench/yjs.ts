/**
 * `npm run bench -- yjs`: a workshop document holding 5,000 card placements after 100,000 updates.
 * The updates go through the real sync endpoint (stored one by one with their SQL copy, compacted
 * as the server goes); then the time to load the document from SQLite is measured after
 * compaction, and against the same history stored uncompacted (the baseline, same run).
 *
 * Two histories: `drags` (50 clients, each move a drag of 20 steps of one card, clients up to date
 * with each other, as on a live canvas) and `scattered` (every update moves a different random
 * card: the worst case, since no two consecutive updates touch the same card).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as sync from 'y-protocols/sync';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { CollabEngine } from '../src/collab/engine';
import { updateMessage } from '../src/collab/protocol';
import { DocumentStore } from '../src/collab/store';
import { testConfig } from '../src/config';
import { newId } from '../src/db/columns';
import { createDeps } from '../src/create-deps';
import type { AppDeps } from '../src/deps';
import { signup } from '../src/modules/auth/service';
import { DEFAULT_VIEW } from '../src/modules/workshops/view';
import { createServer } from '../src/server';

const CARDS = 5_000;
const UPDATES = 100_000;
const DRAG_STEPS = 20;
const CLIENTS = 50;
const TARGET_MS = 100;

type Workload = 'drags' | 'scattered';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

function seed(deps: AppDeps, userId: string): { workshopId: string; cardIds: string[] } {
  const { sqlite } = deps.database;
  const workshopId = newId();
  const now = new Date().toISOString();
  const cardIds = Array.from({ length: CARDS }, () => newId());
  sqlite.transaction(() => {
    sqlite
      .prepare(`INSERT INTO workshops (id, owner_type, owner_id, created_by, title, view, access_code, last_card_number, created_at, updated_at)
                VALUES (?, 'user', ?, ?, 'Bench', ?, '123456789', ?, ?, ?)`)
      .run(workshopId, userId, userId, JSON.stringify(DEFAULT_VIEW), CARDS, now, now);
    sqlite.prepare("INSERT INTO workshop_members (id, workshop_id, user_id, role, created_at) VALUES (?, ?, ?, 'facilitator', ?)").run(newId(), workshopId, userId, now);
    const card = sqlite.prepare(`INSERT INTO cards (id, workshop_id, number, type, title, content, aside, position, user_id, created_at, updated_at)
                                 VALUES (?, ?, ?, 'cluster', ?, '', 0, ?, ?, ?, ?)`);
    cardIds.forEach((id, i) => card.run(id, workshopId, i + 1, `Card ${i + 1}`, i, userId, now, now));
  })();
  return { workshopId, cardIds };
}

/** A bare y-websocket connection: asks for the whole document, then only sends. */
async function connect(url: string, workshopId: string, token: string): Promise<{ ws: WebSocket; initial: Uint8Array }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/sync/${workshopId}?token=${token}`);
  const initial = await new Promise<Uint8Array>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      sync.writeSyncStep1(encoder, new Y.Doc());
      ws.send(encoding.toUint8Array(encoder));
    });
    ws.on('message', (data: Buffer) => {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      if (decoding.readVarUint(decoder) !== 0 || decoding.readVarUint(decoder) !== sync.messageYjsSyncStep2) return;
      resolve(decoding.readVarUint8Array(decoder));
    });
  });
  return { ws, initial };
}

/** The clients' updates, in the order they were made; each moves a card to x = its index. */
function history(workload: Workload, initial: Uint8Array, cardIds: string[]): { updates: Uint8Array[]; lastCardId: string } {
  const updates: Uint8Array[] = [];
  let lastCardId = '';
  const truth = new Y.Doc();
  Y.applyUpdate(truth, initial);
  const clients = Array.from({ length: workload === 'drags' ? CLIENTS : 1 }, () => {
    const doc = new Y.Doc();
    Y.applyUpdate(doc, initial);
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === 'catch-up') return;
      updates.push(update);
      if (workload === 'drags') Y.applyUpdate(truth, update, 'catch-up');
    });
    return doc;
  });
  while (updates.length < UPDATES) {
    const client = clients[Math.floor(Math.random() * clients.length)]!;
    if (workload === 'drags') Y.applyUpdate(client, Y.encodeStateAsUpdate(truth, Y.encodeStateVector(client)), 'catch-up');
    const cards = client.getMap<{ position: number }>('cards');
    const cardId = cardIds[Math.floor(Math.random() * cardIds.length)]!;
    const steps = workload === 'drags' ? Math.min(DRAG_STEPS, UPDATES - updates.length) : 1;
    for (let step = 0; step < steps; step++) {
      const n = updates.length;
      cards.set(cardId, { position: cards.get(cardId)!.position, x: n, y: -n });
    }
    lastCardId = cardId;
  }
  return { updates, lastCardId };
}

/** Loads the document through the service `runs` times (unloading in between) and times each load. */
function timeLoads(engine: CollabEngine, workshopId: string, runs: number) {
  const times: number[] = [];
  let placements = new Map();
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    placements = engine.cardPlacements(workshopId);
    times.push(performance.now() - started);
    engine.unloadNow(workshopId, { compact: false });
  }
  return { median: median(times), placements };
}

/** Reading the stored rows and applying them to a Y.Doc, without the service around it. */
function timeStorageOnly(deps: AppDeps, workshopId: string, runs: number): number {
  const store = new DocumentStore(deps.database.sqlite);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const stored = store.read(workshopId);
    const doc = new Y.Doc();
    doc.transact(() => {
      if (stored.snapshot) Y.applyUpdate(doc, stored.snapshot);
      for (const { update } of stored.updates) Y.applyUpdate(doc, update);
    });
    times.push(performance.now() - started);
    doc.destroy();
  }
  return median(times);
}

async function run(workload: Workload): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-bench-yjs-'));
  const config = testConfig({ databasePath: join(dir, 'bench.db'), filesDir: join(dir, 'files') });
  try {
    let deps = createDeps(config);
    const server = await createServer(deps, { port: 0, hostname: '127.0.0.1' });
    const { token, user } = await signup(deps, { email: `bench-${workload}@example.test`, password: 'bench password', name: 'Bench' });
    const { workshopId, cardIds } = seed(deps, user.id);
    const { ws, initial } = await connect(server.url, workshopId, token);

    const generating = performance.now();
    const { updates, lastCardId } = history(workload, initial, cardIds);
    const generateMs = performance.now() - generating;
    const storedX = deps.database.sqlite.prepare<[string], number>('SELECT x FROM cards WHERE id = ?').pluck();
    const started = performance.now();
    for (const update of updates) ws.send(updateMessage(update));
    while (storedX.get(lastCardId) !== UPDATES - 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const ingestMs = performance.now() - started;
    const stored = deps.database.sqlite.prepare<[string], number>('SELECT count(*) FROM yjs_updates WHERE workshop_id = ?').pluck().get(workshopId)!;
    ws.close();
    await server.close();
    deps.database.close();

    deps = createDeps(config);
    const engine = deps.collab as CollabEngine;
    const snapshotBytes = deps.database.sqlite.prepare<[string], number>('SELECT length(state) FROM yjs_documents WHERE workshop_id = ?').pluck().get(workshopId)!;
    const compacted = timeLoads(engine, workshopId, 7);
    const compactedStorage = timeStorageOnly(deps, workshopId, 7);

    // The same history, stored as it came: the initial state and every update, no snapshot.
    const { sqlite } = deps.database;
    sqlite.transaction(() => {
      sqlite.prepare('DELETE FROM yjs_documents WHERE workshop_id = ?').run(workshopId);
      const insert = sqlite.prepare("INSERT INTO yjs_updates (workshop_id, \"update\", created_at) VALUES (?, ?, '')");
      for (const update of [initial, ...updates]) insert.run(workshopId, update);
    })();
    const baseline = timeLoads(engine, workshopId, 3);
    const baselineStorage = timeStorageOnly(deps, workshopId, 3);
    const same = JSON.stringify([...baseline.placements].sort()) === JSON.stringify([...compacted.placements].sort());
    await engine.close();
    deps.database.close();

    console.log(`\n${workload}: ${CARDS} cards, ${UPDATES} updates (${workload === 'drags' ? `${CLIENTS} clients, drags of ${DRAG_STEPS} steps` : 'one random card per update'})`);
    console.log(`  history made by the clients in ${ms(generateMs)}`);
    console.log(`  ingest through /v1/sync: ${(UPDATES / (ingestMs / 1000)).toFixed(0)} updates/s stored (${ms(ingestMs)}); stored updates left: ${stored}`);
    console.log(`  snapshot: ${(snapshotBytes / 1024).toFixed(0)} KiB; placements loaded: ${compacted.placements.size}; same content both ways: ${same}`);
    console.log(`  load after compaction: ${ms(compacted.median)} (storage + Yjs only: ${ms(compactedStorage)})  target < ${TARGET_MS} ms`);
    console.log(`  load uncompacted:      ${ms(baseline.median)} (storage + Yjs only: ${ms(baselineStorage)})`);
    console.log(`  ratio uncompacted / compacted: ${(baseline.median / compacted.median).toFixed(1)}×`);
    if (!same || compacted.placements.size !== CARDS) throw new Error('the compacted document does not match its history');
    return compacted.median;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Array<[Workload, number]> = [];
for (const workload of ['drags', 'scattered'] as const) results.push([workload, await run(workload)]);
console.log(`\n${results.map(([w, t]) => `${w}: ${ms(t)} ${t < TARGET_MS ? '(meets' : '(misses'} the ${TARGET_MS} ms target)`).join('; ')}`);
process.exit(0);
