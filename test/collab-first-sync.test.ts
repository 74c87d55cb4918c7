import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as decoding from 'lib0/decoding';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import * as Y from 'yjs';
import { syncStep1Message, updateMessage } from '../src/collab/protocol';
import { useDocs, useServer, useUsers } from './helpers/cast';
import { engineOf, sqlPlacement, storedUpdateCount, syncedDoc, type DocClient } from './helpers/collab';
import { createUser, eventLog, seedCard, seedWorkshop, type TestUser, inTurn } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';
import { quietFor, until } from './helpers/wait';

const t = useServer();
const [fay] = useUsers(t, 'Fay');
const docs = useDocs(t);

type Received = 'step1' | 'step2' | 'update' | 'awareness';

/** A bare y-websocket connection: what the server sends, in order, applied to its own Y.Doc. */
async function rawClient(server: TestServer, workshopId: string, user: TestUser) {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/sync/${workshopId}?token=${user.token}`);
  const doc = new Y.Doc();
  const received: Received[] = [];
  ws.on('message', (data: Buffer) => {
    const decoder = decoding.createDecoder(new Uint8Array(data));
    if (decoding.readVarUint(decoder) !== 0) return void received.push('awareness');
    const step = decoding.readVarUint(decoder);
    const payload = decoding.readVarUint8Array(decoder);
    if (step === 0) return void received.push('step1');
    Y.applyUpdate(doc, payload);
    received.push(step === 1 ? 'step2' : 'update');
  });
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  return { ws, doc, received, cards: doc.getMap<{ position: number; x: number | null; y: number | null }>('cards') };
}

/** How many structs a document's history holds in all: the sum of its state vector. */
const historyLength = (doc: Y.Doc) =>
  [...Y.decodeStateVector(Y.encodeStateVector(doc)).values()].reduce((sum, clock) => sum + clock, 0);

/** Moves each card to x = its index in `cards` plus `base`, on `client`. */
function moveAll(client: DocClient, cards: ReadonlyArray<{ id: string }>, base: number) {
  cards.forEach((card, i) => client.cards.set(card.id, { ...client.cards.get(card.id), x: base + i, y: -(base + i) }));
}

describe('a new connection to a document this instance has not loaded', () => {
  it('gets its first sync from the stored snapshot and updates before the document loads, then joins it', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, fay);
    const cards = await inTurn(6, () => seedCard(t, w.id, fay, { type: 'cluster' }));
    const first = await docs.synced(w.id, fay);
    moveAll(first, cards, 10);
    await until(async () => (await sqlPlacement(t, cards[5]!.id)).x === 15, 'first moves stored');
    // Clients are stopped before each unload: a provider cut off reconnects and loads the document.
    first.disconnect();
    await engine.unloadNow(w.id, { compact: true });
    // A snapshot, and updates stored after it.
    const second = await docs.synced(w.id, fay);
    moveAll(second, cards.slice(0, 2), 50);
    await until(async () => (await sqlPlacement(t, cards[1]!.id)).x === 51, 'later moves stored');
    const expected = second.cards.toJSON();
    second.disconnect();
    await engine.unloadNow(w.id, { compact: false });
    expect(await storedUpdateCount(t, w.id)).toBeGreaterThan(0);

    const raw = await rawClient(t, w.id, fay);
    raw.ws.send(syncStep1Message(new Y.Doc()));
    await until(() => raw.received.includes('step1'), "the server's step 1");
    // The answer came before the server asked for anything: it was made without the document.
    expect(raw.received.slice(0, 3)).toEqual(['update', 'step2', 'step1']);
    expect(raw.cards.toJSON()).toEqual(expected);
    expect(engine.loadedDocuments()).toContain(w.id);

    // Joined: it hears what others store from now on.
    const later = await docs.synced(w.id, fay);
    later.cards.set(cards[3]!.id, { position: 3, x: 77, y: 0 });
    await until(() => raw.cards.get(cards[3]!.id)?.x === 77, 'a later move relayed');
    raw.ws.close();
  });

  it('gets what was stored between its answer and the load, such as cards SQL had and the stored document lacked', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, fay);
    const card = await seedCard(t, w.id, fay, { type: 'cluster' });
    const first = await docs.synced(w.id, fay);
    first.cards.set(card.id, { position: 0, x: 5, y: 5 });
    await until(async () => (await sqlPlacement(t, card.id)).x === 5, 'move stored');
    first.disconnect();
    await engine.unloadNow(w.id, { compact: true });
    // Written to SQL only: the answer lacks it, the load puts it in and stores that.
    const late = await seedCard(t, w.id, fay, { type: 'cluster' });

    const client = await docs.synced(w.id, fay);
    await until(() => client.cards.has(late.id), 'the card the load added');
    expect(client.cards.toJSON()).toEqual({
      [card.id]: { position: 0, x: 5, y: 5 },
      [late.id]: { position: 1, x: null, y: null },
    });
  });

  it('stores the updates it sends before the document is loaded, in order, before relaying them', async () => {
    const engine = engineOf(t);
    const w = await seedWorkshop(t, fay);
    const [a, b] = [
      await seedCard(t, w.id, fay, { type: 'cluster' }),
      await seedCard(t, w.id, fay, { type: 'cluster' }),
    ];
    const old = await docs.synced(w.id, fay);
    old.disconnect();
    await engine.unloadNow(w.id, { compact: true });

    const updates: Uint8Array[] = [];
    old.doc.on('update', (update: Uint8Array) => updates.push(update));
    old.cards.set(a.id, { position: 0, x: 1, y: 1 });
    old.cards.set(a.id, { position: 0, x: 2, y: 2 });
    old.cards.set(b.id, { position: 1, x: 3, y: 3 });

    // Step 1 and two updates at once: the updates wait for the document, which loads after the answer.
    const raw = await rawClient(t, w.id, fay);
    raw.ws.send(syncStep1Message(old.doc));
    raw.ws.send(updateMessage(updates[0]!));
    raw.ws.send(updateMessage(updates[1]!));
    await until(async () => (await sqlPlacement(t, a.id)).x === 2, 'both updates stored');
    const moves = (await eventLog(t, w.id)).filter((row) => row.action === 'moveCards');
    expect(
      moves.map((row) => (row.change as { placements: Record<string, { x: number }> }).placements[a.id]!.x),
    ).toEqual([1, 2]);
    const watcher = await docs.synced(w.id, fay);
    expect(watcher.cards.get(a.id)).toEqual({ position: 0, x: 2, y: 2 });
    raw.ws.close();
    watcher.disconnect();

    // An update before any step 1: the document loads at once to take it.
    await engine.unloadNow(w.id, { compact: true });
    const eager = await rawClient(t, w.id, fay);
    eager.ws.send(updateMessage(updates[2]!));
    eager.ws.send(syncStep1Message(old.doc));
    await until(async () => (await sqlPlacement(t, b.id)).x === 3, 'update sent before step 1 stored');
    await until(() => eager.received.includes('step2'), 'step 2 answered from the document');
    eager.ws.close();
  });
});

describe('a client that kept an old copy and edited it offline', () => {
  it('keeps all its edits, for other clients and after a restart, without doubling any history', async () => {
    const first = await startTestServer();
    const owner = await createUser(first, 'Owner');
    const w = await seedWorkshop(first, owner);
    const cards = await inTurn(40, () => seedCard(first, w.id, owner, { type: 'cluster' }));
    const [moved, keptForOffline] = [cards.slice(0, 30), cards.slice(30)];
    const engine = engineOf(first);
    const old = await syncedDoc(first, w.id, owner.token);
    old.disconnect();

    // While it is away: 900 moves scattered over 30 cards, compacted as they come and on unload.
    const busy = await syncedDoc(first, w.id, owner.token);
    for (let round = 0; round < 30; round++)
      moveAll(
        busy,
        moved.map((_, i) => moved[(i * 7 + round) % moved.length]!),
        round * 100,
      );
    const last = moved[(29 * 7 + 29) % moved.length]!;
    await until(async () => (await sqlPlacement(first, last.id)).x === 2_929, 'the moves stored', 15_000);
    expect(await storedUpdateCount(first, w.id)).toBeLessThanOrEqual(engine.options.compactAfter + 1);
    const serverHistory = historyLength(busy.doc);
    const afterMoves = busy.cards.toJSON();
    busy.destroy();
    await engine.unloadNow(w.id, { compact: true });

    const offlineFrom = historyLength(old.doc);
    moveAll(old, keptForOffline, 1_000);
    const offlineEdits = historyLength(old.doc) - offlineFrom;
    expect(offlineEdits).toBe(keptForOffline.length);

    // Back online on the document nobody has loaded: first sync from the stored state.
    const back = await syncedDoc(first, w.id, owner.token, old.doc);
    await until(
      async () => (await sqlPlacement(first, keptForOffline.at(-1)!.id)).x === 1_000 + keptForOffline.length - 1,
      'offline edits stored',
    );
    const expected = { ...afterMoves };
    keptForOffline.forEach(
      (card, i) => (expected[card.id] = { ...afterMoves[card.id], x: 1_000 + i, y: -(1_000 + i) }),
    );
    const watcher = await syncedDoc(first, w.id, owner.token);
    expect(watcher.cards.toJSON()).toEqual(expected);
    expect(back.cards.toJSON()).toEqual(expected);
    for (const card of cards) expect(await sqlPlacement(first, card.id)).toEqual(expected[card.id]);
    // Nothing was sent twice or re-created: the server holds its history plus the offline edits.
    expect(historyLength(watcher.doc)).toBe(serverHistory + offlineEdits);
    back.disconnect();
    watcher.destroy();
    await first.server.close();
    await first.deps.database.close();

    const second = await startTestServer({}, { shareDatabaseOf: first });
    try {
      const fresh = await syncedDoc(second, w.id, owner.token);
      expect(fresh.cards.toJSON()).toEqual(expected);
      expect(historyLength(fresh.doc)).toBe(serverHistory + offlineEdits);
      // The old copy returning once more brings nothing new.
      const again = await syncedDoc(second, w.id, owner.token, old.doc);
      await quietFor(100, 'the old copy answers the server step 1');
      expect(await storedUpdateCount(second, w.id)).toBe(0);
      expect(historyLength(again.doc)).toBe(serverHistory + offlineEdits);
      fresh.destroy();
      again.destroy();
    } finally {
      await second.close();
      rmSync(dirname(first.deps.config.databasePath), { recursive: true, force: true });
    }
  });
});
