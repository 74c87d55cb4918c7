import { count, eq } from 'drizzle-orm';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { CollabEngine } from '../../src/collab/engine';
import type { ZoneOutput } from '../../src/domain/canvas';
import type { TestServer } from './server';
import { until } from './wait';

/** A y-websocket client (the real `WebsocketProvider` over `ws`) on a workshop's document. */
export interface DocClient {
  doc: Y.Doc;
  provider: WebsocketProvider;
  cards: Y.Map<any>;
  zones: Y.Map<any>;
  /** Close events the provider saw (code and reason). */
  closes: Array<{ code: number; reason: string }>;
  destroy(): void;
  /** Stops the provider but keeps the document, as a client going offline would. */
  disconnect(): void;
}

/** Opens a client; pass `doc` to reconnect a document that lived on (a laptop waking up). */
export function openDoc(t: TestServer, workshopId: string, token: string | undefined, doc = new Y.Doc()): DocClient {
  const closes: Array<{ code: number; reason: string }> = [];
  const provider = new WebsocketProvider(t.url.replace(/^http/, 'ws') + '/v1/sync', workshopId, doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: token === undefined ? {} : { token },
    // Clients in one process would otherwise sync through a BroadcastChannel, around the server.
    disableBc: true,
    maxBackoffTime: 200,
  });
  provider.on('connection-close', (event) => {
    if (event) closes.push({ code: event.code, reason: event.reason });
  });
  return {
    doc,
    provider,
    cards: doc.getMap('cards'),
    zones: doc.getMap('zones'),
    closes,
    destroy() {
      provider.destroy();
      doc.destroy();
    },
    disconnect() {
      provider.destroy();
    },
  };
}

/** Opens a client and waits until its first sync with the server is done. */
export async function syncedDoc(t: TestServer, workshopId: string, token: string, doc?: Y.Doc): Promise<DocClient> {
  const client = openDoc(t, workshopId, token, doc);
  await until(() => client.provider.synced, `client synced with ${workshopId}`);
  return client;
}

/** The engine behind `deps.collab`, for what only tests look at (loaded documents, timings). */
export function engineOf(t: TestServer): CollabEngine {
  if (!(t.deps.collab instanceof CollabEngine)) throw new Error('deps.collab is not the CollabEngine');
  return t.deps.collab;
}

/** A raw WebSocket on the sync endpoint: every message and the close code, to prove nothing was synced. */
export async function rawSync(t: TestServer, path: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + path, { headers });
  const messages: Buffer[] = [];
  ws.on('message', (data) => messages.push(data as Buffer));
  const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', reject);
  });
  return { ...closed, messages };
}

export async function storedUpdateCount(t: TestServer, workshopId: string): Promise<number> {
  const { yjsUpdates } = t.tables;
  const [counted] = await t.db.select({ n: count() }).from(yjsUpdates).where(eq(yjsUpdates.workshopId, workshopId));
  return counted!.n;
}

export async function sqlPlacement(
  t: TestServer,
  cardId: string,
): Promise<{ position: number; x: number | null; y: number | null }> {
  const { cards } = t.tables;
  const [placement] = await t.db
    .select({ position: cards.position, x: cards.x, y: cards.y })
    .from(cards)
    .where(eq(cards.id, cardId));
  return placement!;
}

/**
 * A canvas on the workshop with `count` empty zones side by side (4 rows, 6 columns, `Zone <i>`),
 * written straight to the store as a starting point for document tests. Returns the zones' ids.
 */
export function seedCanvas(t: TestServer, workshopId: string, count = 1): Promise<string[]> {
  const now = new Date().toISOString();
  const canvasId = `canvas-${workshopId}`;
  return t.write(async (tx, { canvases, zones }) => {
    await tx.insert(canvases).values({
      id: canvasId,
      workshopId,
      name: 'Board',
      backgroundId: 'swot',
      backgroundCols: 12,
      backgroundRows: 8,
      createdAt: now,
      updatedAt: now,
    });
    const ids = Array.from({ length: count }, (_, i) => `zone-${i}-${workshopId}`);
    if (count > 0)
      await tx.insert(zones).values(
        ids.map((id, i) => ({
          id,
          canvasId,
          workshopId,
          name: `Zone ${i}`,
          x: i * 6,
          y: 0,
          rows: 4,
          cols: 6,
          clusterId: null,
          position: i,
          createdAt: now,
          updatedAt: now,
        })),
      );
    return ids;
  });
}

/** A zone as the store holds it, in the API's names. */
export async function sqlZone(t: TestServer, zoneId: string): Promise<Omit<ZoneOutput, 'id'>> {
  const { zones } = t.tables;
  const [zone] = await t.db
    .select({
      name: zones.name,
      x: zones.x,
      y: zones.y,
      rows: zones.rows,
      cols: zones.cols,
      cluster_id: zones.clusterId,
    })
    .from(zones)
    .where(eq(zones.id, zoneId));
  return zone!;
}

/** A raw WebSocket joined to a workshop's document: send hand-made messages, see how it closes. */
export async function rawMember(t: TestServer, workshopId: string, token: string) {
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/v1/sync/${workshopId}?token=${token}`);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, closed, send: (message: Uint8Array) => ws.send(message) };
}
