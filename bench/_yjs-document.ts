/**
 * The document of the yjs bench (bench/yjs.ts, whose header describes the two histories): the bench
 * workshop with its cards and canvas, the history its clients make, sending it through the sync
 * endpoint, storing it again uncompacted, and timing loads of the stored document.
 */
import { count, eq, sql } from 'drizzle-orm';
import type { WebSocket } from 'ws';
import * as Y from 'yjs';
import type { CollabEngine } from '../src/collab/engine';
import { updateMessage } from '../src/collab/protocol';
import { DocumentStore } from '../src/collab/store';
import { newId } from '../src/db/columns';
import { tablesOf } from '../src/db/database';
import type { AppDeps } from '../src/deps';
import { DEFAULT_VIEW } from '../src/domain/view';

export const CARDS = 5_000;
export const UPDATES = 100_000;
export const DRAG_STEPS = 20;
export const CLIENTS = 50;
/** Updates sent before waiting for the server to have stored them (see `ingest`). */
const SEND_BATCH = 2_000;
/** Ingest fails, rather than waits forever, when the server stores nothing for this long. */
const STALL_MS = 30_000;
/** Rows per INSERT when writing rows straight into the database (well under its limit of bound parameters). */
const INSERT_BATCH = 500;
/** The bench workshop's canvas: reads of its zones are timed. */
export const BOARD = {
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

export type Workload = 'drags' | 'scattered';

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function seed(deps: AppDeps, userId: string): Promise<{ workshopId: string; cardIds: string[] }> {
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

/** The bench workshop's canvas (`BOARD`), created through the REST API. */
export async function createBoard(serverUrl: string, workshopId: string, token: string) {
  const board = await fetch(`${serverUrl}/v1/workshops/${workshopId}/canvas`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(BOARD),
  });
  if (board.status !== 201) throw new Error(`could not create the canvas: ${board.status} ${await board.text()}`);
}

/** The clients' updates, in the order they were made; each moves a card to x = its index. */
export function history(
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

/** The x stored for a card, by a statement prepared once (`ingest` asks it after every batch). */
export function storedXOf(deps: AppDeps): (cardId: string) => Promise<number | null | undefined> {
  const { db } = deps.database;
  const { cards } = tablesOf(db);
  const storedX = db
    .select({ x: cards.x })
    .from(cards)
    .where(eq(cards.id, sql.placeholder('cardId')))
    .prepare();
  return async (cardId) => (await storedX.execute({ cardId }))[0]?.x;
}

/**
 * Sends the updates through one connection in batches, each once the server has stored the one
 * before (update i moves `movedCard[i]` to x = i). Sent all at once, megabytes would sit in the
 * socket ahead of anything else this client sends, its answers to the server's pings included.
 * Fails if the connection closes or nothing is stored for `STALL_MS`.
 */
export async function ingest(
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

/** The updates of the workshop stored after its snapshot (not compacted yet). */
export async function storedUpdateCount(deps: AppDeps, workshopId: string): Promise<number> {
  const { db } = deps.database;
  const { yjsUpdates } = tablesOf(db);
  return (await db.select({ stored: count() }).from(yjsUpdates).where(eq(yjsUpdates.workshopId, workshopId)))[0]!
    .stored;
}

/** The size of the workshop's stored snapshot. */
export async function snapshotBytesOf(deps: AppDeps, workshopId: string): Promise<number> {
  const { yjsDocuments } = tablesOf(deps.database.db);
  return (
    await deps.database.db
      .select({ bytes: sql<number>`length(${yjsDocuments.state})`.mapWith(Number) })
      .from(yjsDocuments)
      .where(eq(yjsDocuments.workshopId, workshopId))
  )[0]!.bytes;
}

/** The same history stored as it came: `updates` (the initial state first), no snapshot. */
export async function storeUncompacted(deps: AppDeps, workshopId: string, updates: Uint8Array[]) {
  await deps.database.transaction(async (tx) => {
    const { yjsDocuments, yjsUpdates } = tablesOf(tx);
    await tx.delete(yjsDocuments).where(eq(yjsDocuments.workshopId, workshopId));
    const rows = updates.map((update) => ({
      workshopId,
      update: Buffer.from(update.buffer, update.byteOffset, update.byteLength),
      createdAt: '',
    }));
    for (let start = 0; start < rows.length; start += INSERT_BATCH)
      await tx.insert(yjsUpdates).values(rows.slice(start, start + INSERT_BATCH));
  });
}

/** Loads the document through the service `runs` times (unloading in between) and times each load. */
export async function timeLoads(engine: CollabEngine, workshopId: string, runs: number) {
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
export async function timeStorageOnly(deps: AppDeps, workshopId: string, runs: number): Promise<number> {
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
