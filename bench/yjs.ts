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
 * Those clients run in a child process (this file with the argument `client`), since the server
 * loads the document right after answering, which would hold back a client on its event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, eq, sql } from 'drizzle-orm';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as sync from 'y-protocols/sync';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import type { CollabEngine } from '../src/collab/engine';
import { updateMessage } from '../src/collab/protocol';
import { DocumentStore } from '../src/collab/store';
import { testConfig, type Config } from '../src/config';
import { newId } from '../src/db/columns';
import { tablesOf } from '../src/db/database';
import type { AppDeps } from '../src/deps';
import { DEFAULT_VIEW } from '../src/domain/view';

const CARDS = 5_000;
const UPDATES = 100_000;
const DRAG_STEPS = 20;
const CLIENTS = 50;
const TARGET_MS = 100;
/** Updates sent before waiting for the server to have stored them (see `ingest`). */
const SEND_BATCH = 2_000;
/** Ingest fails, rather than waits forever, when the server stores nothing for this long. */
const STALL_MS = 30_000;
/** Rows per INSERT when writing rows straight into the database (well under its limit of bound parameters). */
const INSERT_BATCH = 500;
/** Cold reads and first syncs timed per workload. */
const COLD_RUNS = 7;
/** The bench workshop's canvas: reads of its zones are timed. */
const BOARD = {
  name: 'Bench board',
  background: { cols: 40, rows: 20 },
  zones: Array.from({ length: 8 }, (_, i) => ({
    name: `Zone ${i + 1}`,
    x: (i % 4) * 10,
    y: Math.floor(i / 4) * 10,
    rows: 10,
    cols: 10,
  })),
};

type Workload = 'drags' | 'scattered';

/** The service itself, imported by the bench process only: the client process needs none of it. */
async function service() {
  const [{ createDeps }, { createServer }, { signup }] = await Promise.all([
    import('../src/create-deps'),
    import('../src/server'),
    import('../src/modules/auth/service'),
  ]);
  return { createDeps, createServer, signup };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function seed(deps: AppDeps, userId: string): Promise<{ workshopId: string; cardIds: string[] }> {
  const workshopId = newId();
  const now = new Date().toISOString();
  const cardIds = Array.from({ length: CARDS }, () => newId());
  await deps.database.transaction(async (tx) => {
    const { cards, workshopMembers, workshops } = tablesOf(tx);
    await tx.insert(workshops).values({
      id: workshopId,
      ownerType: 'user',
      ownerId: userId,
      createdBy: userId,
      title: 'Bench',
      view: DEFAULT_VIEW,
      accessCode: '123456789',
      lastCardNumber: CARDS,
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(workshopMembers).values({ id: newId(), workshopId, userId, role: 'facilitator', createdAt: now });
    const rows = cardIds.map((id, i) => ({
      id,
      workshopId,
      number: i + 1,
      type: 'cluster' as const,
      title: `Card ${i + 1}`,
      content: '',
      aside: false,
      position: i,
      userId,
      createdAt: now,
      updatedAt: now,
    }));
    for (let start = 0; start < rows.length; start += INSERT_BATCH)
      await tx.insert(cards).values(rows.slice(start, start + INSERT_BATCH));
  });
  return { workshopId, cardIds };
}

const syncUrlOf = (serverUrl: string, workshopId: string, token: string) =>
  `${serverUrl.replace(/^http/, 'ws')}/v1/sync/${workshopId}?token=${token}`;

/**
 * A bare y-websocket connection with an empty document: resolves once the server's step 2 (the
 * whole document) arrived, with its update and the message's size.
 */
async function syncFromEmpty(syncUrl: string): Promise<{ ws: WebSocket; initial: Uint8Array; bytes: number }> {
  const ws = new WebSocket(syncUrl);
  const answer = await new Promise<{ initial: Uint8Array; bytes: number }>((resolve, reject) => {
    ws.on('error', reject);
    ws.once('close', (code) => reject(new Error(`closed with ${code} before step 2`)));
    ws.on('open', () => {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      sync.writeSyncStep1(encoder, new Y.Doc());
      ws.send(encoding.toUint8Array(encoder));
    });
    ws.on('message', (data: Buffer) => {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      if (decoding.readVarUint(decoder) !== 0 || decoding.readVarUint(decoder) !== sync.messageYjsSyncStep2) return;
      resolve({ initial: decoding.readVarUint8Array(decoder), bytes: data.byteLength });
    });
  });
  return { ws, ...answer };
}

/** The clients' updates, in the order they were made; each moves a card to x = its index. */
function history(
  workload: Workload,
  initial: Uint8Array,
  cardIds: string[],
): { updates: Uint8Array[]; movedCard: string[] } {
  const updates: Uint8Array[] = [];
  /** The card update i moves (to x = i). */
  const movedCard: string[] = [];
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
    if (workload === 'drags')
      Y.applyUpdate(client, Y.encodeStateAsUpdate(truth, Y.encodeStateVector(client)), 'catch-up');
    const cards = client.getMap<{ position: number }>('cards');
    const cardId = cardIds[Math.floor(Math.random() * cardIds.length)]!;
    const steps = workload === 'drags' ? Math.min(DRAG_STEPS, UPDATES - updates.length) : 1;
    for (let step = 0; step < steps; step++) {
      const n = updates.length;
      cards.set(cardId, { position: cards.get(cardId)!.position, x: n, y: -n });
      movedCard.push(cardId);
    }
  }
  return { updates, movedCard };
}

/**
 * Sends the updates through one connection in batches, each once the server has stored the one
 * before (update i moves `movedCard[i]` to x = i). Sent all at once, megabytes would sit in the
 * socket ahead of anything else this client sends, its answers to the server's pings included.
 * Fails if the connection closes or nothing is stored for `STALL_MS`.
 */
async function ingest(
  ws: WebSocket,
  updates: Uint8Array[],
  movedCard: string[],
  storedX: (cardId: string) => Promise<number | null | undefined>,
) {
  let closed: string | undefined;
  ws.once('close', (code, reason) => (closed = `${code} ${reason.toString()}`));
  for (let start = 0; start < updates.length; start += SEND_BATCH) {
    const end = Math.min(start + SEND_BATCH, updates.length);
    for (let i = start; i < end; i++) ws.send(updateMessage(updates[i]!));
    const deadline = performance.now() + STALL_MS;
    while ((await storedX(movedCard[end - 1]!)) !== end - 1) {
      if (closed !== undefined)
        throw new Error(`the sync connection closed during ingest (${closed}) after ${start} updates`);
      if (performance.now() > deadline)
        throw new Error(`nothing stored for ${STALL_MS} ms during ingest, after ${start} updates`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Loads the document through the service `runs` times (unloading in between) and times each load. */
async function timeLoads(engine: CollabEngine, workshopId: string, runs: number) {
  const times: number[] = [];
  let placements = new Map();
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    placements = await engine.cardPlacements(workshopId);
    times.push(performance.now() - started);
    await engine.unloadNow(workshopId, { compact: false });
  }
  return { median: median(times), placements };
}

/** Reading the stored rows and applying them to a Y.Doc, without the service around it. */
async function timeStorageOnly(deps: AppDeps, workshopId: string, runs: number): Promise<number> {
  const store = new DocumentStore(deps.database);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    // One snapshot, as the service reads a document it loads.
    const stored = await deps.database.snapshot((db) => store.read(db, workshopId));
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

interface ColdFigures {
  canvas: number;
  cards: number;
  readsLoaded: boolean;
  firstSync: number;
  syncBytes: number;
  loadedSync: number;
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
  const loaded = () => engine.loadedDocuments().includes(workshopId);
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
      const renamed = await fetch(workshopUrl, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Bench ${run}` }),
      });
      if (renamed.status !== 200)
        throw new Error(`could not rename the workshop: ${renamed.status} ${await renamed.text()}`);
      times.canvas.push((await client.ask({ kind: 'get', url: `${workshopUrl}/canvas`, token })).ms);
      times.cards.push((await client.ask({ kind: 'get', url: `${workshopUrl}/cards`, token })).ms);
      readsLoaded ||= loaded();
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
 * A new client's first sync on the document not loaded; the connection stays open until the
 * server has loaded the document after answering, then is closed.
 */
async function firstSync(engine: CollabEngine, client: ClientProcess, workshopId: string, syncUrl: string) {
  await engine.unloadNow(workshopId, { compact: false });
  const answer = await client.ask({ kind: 'sync', url: syncUrl });
  while (!engine.loadedDocuments().includes(workshopId)) await new Promise((resolve) => setTimeout(resolve, 5));
  await client.ask({ kind: 'close' });
  return answer;
}

type ClientTask = { kind: 'get'; url: string; token: string } | { kind: 'sync'; url: string } | { kind: 'close' };

/** This file run as `client`: does what the bench asks over IPC and answers with the time it took. */
class ClientProcess {
  private readonly child: ChildProcess = fork(fileURLToPath(import.meta.url), ['client'], {
    execArgv: ['--import', 'tsx'],
  });

  ask(task: ClientTask): Promise<{ ms: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the bench client exited with ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (answer: { ms: number; bytes: number } | { error: string }) => {
        this.child.off('exit', onExit);
        if ('error' in answer) reject(new Error(answer.error));
        else resolve(answer);
      });
      this.child.send(task);
    });
  }

  stop() {
    this.child.kill();
  }
}

/** The client side: a REST read, or a bare y-websocket client with an empty document syncing. */
function serveAsClient() {
  let open: WebSocket | undefined;
  const handle = async (task: ClientTask): Promise<{ ms: number; bytes: number }> => {
    switch (task.kind) {
      case 'get': {
        const started = performance.now();
        const res = await fetch(task.url, { headers: { authorization: `Bearer ${task.token}` } });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET ${task.url} → ${res.status}`);
        return { ms: performance.now() - started, bytes: body.byteLength };
      }
      case 'sync': {
        const started = performance.now();
        const { ws, bytes } = await syncFromEmpty(task.url);
        open = ws;
        return { ms: performance.now() - started, bytes };
      }
      case 'close': {
        const ws = open;
        open = undefined;
        if (ws && ws.readyState !== WebSocket.CLOSED) {
          ws.removeAllListeners('close');
          await new Promise((resolve) => {
            ws.once('close', resolve);
            ws.close();
          });
        }
        return { ms: 0, bytes: 0 };
      }
    }
  };
  process.on('message', (task: ClientTask) => {
    handle(task).then(
      (answer) => process.send!(answer),
      (err: Error) => process.send!({ error: err.message }),
    );
  });
}

async function run(workload: Workload): Promise<{ load: number; read: number; firstSync: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-bench-yjs-'));
  const config = testConfig({ databasePath: join(dir, 'bench.db'), filesDir: join(dir, 'files') });
  const { createDeps, createServer, signup } = await service();
  try {
    let deps = await createDeps(config);
    const server = await createServer(deps, { port: 0, hostname: '127.0.0.1' });
    const { token, user } = await signup(deps, {
      email: `bench-${workload}@example.test`,
      password: 'bench password',
      name: 'Bench',
    });
    const { workshopId, cardIds } = await seed(deps, user.id);
    const board = await fetch(`${server.url}/v1/workshops/${workshopId}/canvas`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(BOARD),
    });
    if (board.status !== 201) throw new Error(`could not create the canvas: ${board.status} ${await board.text()}`);
    const { ws, initial } = await syncFromEmpty(syncUrlOf(server.url, workshopId, token));

    const generating = performance.now();
    const { updates, movedCard } = history(workload, initial, cardIds);
    const generateMs = performance.now() - generating;
    const { db } = deps.database;
    const { cards, yjsUpdates } = tablesOf(db);
    const storedX = db
      .select({ x: cards.x })
      .from(cards)
      .where(eq(cards.id, sql.placeholder('cardId')))
      .prepare();
    const started = performance.now();
    await ingest(ws, updates, movedCard, async (cardId) => (await storedX.execute({ cardId }))[0]?.x);
    const ingestMs = performance.now() - started;
    const stored = (
      await db.select({ stored: count() }).from(yjsUpdates).where(eq(yjsUpdates.workshopId, workshopId))
    )[0]!.stored;
    ws.close();
    // The first sync also answered from the updates stored after the snapshot (merged), as when
    // another instance holds the document loaded and nobody compacted it yet.
    const client = new ClientProcess();
    const withUpdates: number[] = [];
    try {
      const syncUrl = syncUrlOf(server.url, workshopId, token);
      for (let run = 0; run < 3; run++)
        withUpdates.push((await firstSync(deps.collab as CollabEngine, client, workshopId, syncUrl)).ms);
    } finally {
      client.stop();
    }
    await server.close();
    await deps.database.close();

    deps = await createDeps(config);
    const engine = deps.collab as CollabEngine;
    const { yjsDocuments } = tablesOf(deps.database.db);
    const snapshotBytes = (
      await deps.database.db
        .select({ bytes: sql<number>`length(${yjsDocuments.state})`.mapWith(Number) })
        .from(yjsDocuments)
        .where(eq(yjsDocuments.workshopId, workshopId))
    )[0]!.bytes;
    const compacted = await timeLoads(engine, workshopId, 7);
    const compactedStorage = await timeStorageOnly(deps, workshopId, 7);
    const cold = await timeColdUse(config, workshopId, token);

    // The same history, stored as it came: the initial state and every update, no snapshot.
    await deps.database.transaction(async (tx) => {
      const { yjsDocuments, yjsUpdates } = tablesOf(tx);
      await tx.delete(yjsDocuments).where(eq(yjsDocuments.workshopId, workshopId));
      const rows = [initial, ...updates].map((update) => ({
        workshopId,
        update: Buffer.from(update.buffer, update.byteOffset, update.byteLength),
        createdAt: '',
      }));
      for (let start = 0; start < rows.length; start += INSERT_BATCH)
        await tx.insert(yjsUpdates).values(rows.slice(start, start + INSERT_BATCH));
    });
    const baseline = await timeLoads(engine, workshopId, 3);
    const baselineStorage = await timeStorageOnly(deps, workshopId, 3);
    const same = JSON.stringify([...baseline.placements].sort()) === JSON.stringify([...compacted.placements].sort());
    await engine.close();
    await deps.database.close();

    console.log(
      `\n${workload}: ${CARDS} cards, ${UPDATES} updates (${workload === 'drags' ? `${CLIENTS} clients, drags of ${DRAG_STEPS} steps` : 'one random card per update'})`,
    );
    console.log(`  history made by the clients in ${ms(generateMs)}`);
    console.log(
      `  ingest through /v1/sync: ${(UPDATES / (ingestMs / 1000)).toFixed(0)} updates/s stored (${ms(ingestMs)}); stored updates left: ${stored}`,
    );
    console.log(
      `  snapshot: ${(snapshotBytes / 1024).toFixed(0)} KiB; placements loaded: ${compacted.placements.size}; same content both ways: ${same}`,
    );
    console.log(
      `  load after compaction: ${ms(compacted.median)} (storage + Yjs only: ${ms(compactedStorage)})  target < ${TARGET_MS} ms`,
    );
    console.log(`  load uncompacted:      ${ms(baseline.median)} (storage + Yjs only: ${ms(baselineStorage)})`);
    console.log(`  ratio uncompacted / compacted: ${(baseline.median / compacted.median).toFixed(1)}×`);
    console.log(`  document not loaded (each against the load after compaction above, ${ms(compacted.median)}):`);
    console.log(
      `    REST GET …/canvas (${BOARD.zones.length} zones): ${ms(cold.canvas)}; GET …/cards (${CARDS} cards): ${ms(cold.cards)}; document loaded by them: ${cold.readsLoaded}  target < ${TARGET_MS} ms`,
    );
    console.log(
      `    new client's first sync (connect → step 2, ${(cold.syncBytes / 1024).toFixed(0)} KiB): ${ms(cold.firstSync)}  target < ${TARGET_MS} ms`,
    );
    console.log(`    the same client, document already loaded: ${ms(cold.loadedSync)}`);
    console.log(
      `    first sync with the ${stored} updates stored after the snapshot, not loaded (after ingest): ${ms(median(withUpdates))}`,
    );
    if (!same || compacted.placements.size !== CARDS)
      throw new Error('the compacted document does not match its history');
    if (cold.readsLoaded) throw new Error('a REST read loaded the document');
    return { load: compacted.median, read: Math.max(cold.canvas, cold.cards), firstSync: cold.firstSync };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const verdict = (t: number) => `${ms(t)} ${t < TARGET_MS ? '(meets' : '(misses'} the ${TARGET_MS} ms target)`;

if (process.argv[2] === 'client') serveAsClient();
else {
  const results: Array<[Workload, Awaited<ReturnType<typeof run>>]> = [];
  for (const workload of ['drags', 'scattered'] as const) results.push([workload, await run(workload)]);
  console.log('');
  for (const [workload, r] of results) {
    console.log(
      `${workload}: load ${verdict(r.load)}; slower REST read, not loaded, ${verdict(r.read)}; first sync, not loaded, ${verdict(r.firstSync)}`,
    );
  }
  process.exit(0);
}
