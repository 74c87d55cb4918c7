/**
 * The canvas entry point: a workshop's Yjs document over y-websocket, with typed reads and moves
 * of card placements and zones, and awareness for cursors. Kept apart so that apps without a
 * canvas never load Yjs.
 */
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import type { WorkshopClient } from './client.js';
import { ApiError, type KnownErrorCode } from './errors.js';
import type { Canvas } from './resources.js';

/** A card's place: its index in its stack, and its coordinates on the canvas (null until placed). */
export interface Placement {
  position: number;
  x: number | null;
  y: number | null;
}

/** A zone as the document holds it (keyed by its id): the REST zone's values, optionally linked to a cluster. */
export type Zone = Omit<Canvas['zones'][number], 'id'>;

/** What each peer shares through awareness; a canvas shows the others' cursors from it. */
export interface CanvasPresence {
  name?: string;
  cursor?: { x: number; y: number } | null;
  /** The card being dragged, shown as a ghost by the others until it is dropped. */
  dragging?: { card_id: string; x: number; y: number } | null;
}

export interface CanvasOptions {
  /**
   * The WebSocket class to connect with: the global one by default (browsers, Node 22+). Node 20
   * has none: pass the `ws` package's (`import WebSocket from 'ws'`).
   */
  WebSocket?: unknown;
  /** A document that lived on (offline edits are sent when it connects); a new one by default. */
  doc?: Y.Doc;
  /** The longest wait between reconnection attempts, in ms (y-websocket's default otherwise). */
  maxBackoffTime?: number;
}

export interface WorkshopCanvas<Presence extends object = CanvasPresence> {
  readonly doc: Y.Doc;
  readonly provider: WebsocketProvider;
  /**
   * Resolves once the document is in step with the server; rejects with `ApiError` when the server
   * refuses the connection (401 for a bad token, 404 for a non-member or an unknown workshop).
   */
  readonly synced: Promise<void>;
  /** Why the server closed the connection for good (the close codes 4401, 4403, 4404, 4400); null while it has not. */
  readonly error: ApiError | null;
  placements(): Record<string, Placement>;
  placement(cardId: string): Placement | undefined;
  /**
   * Moves a card: the members given replace the card's, the others stay. A new `position` moves
   * it to that index in its stack. Write on drop: each write is stored and logged by the server.
   */
  moveCard(cardId: string, to: Partial<Placement>): void;
  zones(): Record<string, Zone>;
  /** Changes a zone (facilitators only: the server puts others' changes back). */
  updateZone(zoneId: string, change: Partial<Zone>): void;
  /** Calls `listener` with the ids of the cards and zones whose values changed, by anyone. */
  observe(listener: (changed: { cards: string[]; zones: string[] }) => void): () => void;
  /** Shares this peer's presence (null to withdraw it). */
  setPresence(presence: Presence | null): void;
  /** The other peers' presence, by Yjs client id. */
  others(): Map<number, Presence>;
  /** Calls `listener` when another peer's presence changes. */
  observePresence(listener: (others: Map<number, Presence>) => void): () => void;
  /** Calls `listener` when the server closes the connection for good. */
  onError(listener: (error: ApiError) => void): () => void;
  /** Disconnects and destroys the document's provider (the document stays usable offline). */
  destroy(): void;
}

/** The errors the close codes stand for (the code less 4000 is the HTTP status of the same refusal). */
const CLOSE_CODES: Record<number, { code: KnownErrorCode; message: string }> = {
  4400: { code: 'invalid_request', message: 'The server refused a malformed or disallowed document update.' },
  4401: { code: 'unauthenticated', message: 'The token is missing, unknown or revoked.' },
  4403: {
    code: 'sso_required',
    message: "The workshop's organization requires single sign-on: sign in with its provider.",
  },
  4404: { code: 'not_found', message: 'No such workshop, or not a member of it.' },
};

/**
 * Connects a workshop's canvas document with the client's token:
 * `const canvas = openCanvas(api, id, { WebSocket }); await canvas.synced; canvas.moveCard(card, { x, y });`
 */
export function openCanvas<Presence extends object = CanvasPresence>(
  client: Pick<WorkshopClient, 'baseUrl' | 'token'>,
  workshopId: string,
  options: CanvasOptions = {},
): WorkshopCanvas<Presence> {
  const WebSocketClass = options.WebSocket ?? globalThis.WebSocket;
  if (!WebSocketClass)
    throw new Error("no WebSocket in this runtime: pass one as options.WebSocket (in Node 20, the ws package's)");
  const doc = options.doc ?? new Y.Doc();
  const provider = new WebsocketProvider(`${client.baseUrl.replace(/^http/, 'ws')}/v1/sync`, workshopId, doc, {
    params: client.token === null ? {} : { token: client.token },
    WebSocketPolyfill: WebSocketClass as typeof WebSocket,
    // Tabs would otherwise pass updates to each other around the server, which checks and repairs them.
    disableBc: true,
    ...(options.maxBackoffTime === undefined ? {} : { maxBackoffTime: options.maxBackoffTime }),
  });
  const cards = doc.getMap<Placement>('cards');
  const zones = doc.getMap<Zone>('zones');
  const { awareness } = provider;
  const errorListeners = new Set<(error: ApiError) => void>();
  let error: ApiError | null = null;

  // Reconnections use the client's token of the moment (set again after a login).
  provider.on('connection-close', () => {
    provider.params = client.token === null ? {} : { token: client.token };
  });

  const synced = new Promise<void>((resolve, reject) => {
    if (provider.synced) return resolve();
    provider.on('sync', (isSynced) => {
      if (isSynced) resolve();
    });
    provider.on('closed', ({ code, reason }) => {
      const known = CLOSE_CODES[code];
      error = new ApiError(
        known ? code - 4000 : 500,
        known?.code ?? (reason || 'internal_error'),
        known?.message ?? `The sync connection closed with ${code}.`,
      );
      reject(error);
      for (const listener of errorListeners) listener(error);
    });
  });
  // A refusal is also given to onError listeners; an app that only listens there should not see an unhandled rejection.
  synced.catch(() => {});

  const presenceOfOthers = () => {
    const others = new Map<number, Presence>();
    for (const [clientId, state] of awareness.getStates())
      if (clientId !== doc.clientID) others.set(clientId, state as Presence);
    return others;
  };

  return {
    doc,
    provider,
    synced,
    get error() {
      return error;
    },
    placements: () => cards.toJSON() as Record<string, Placement>,
    placement: (cardId) => cards.get(cardId),
    moveCard(cardId, to) {
      const current = cards.get(cardId);
      if (!current) throw new Error(`card ${cardId} is not on the canvas (cards are created over REST)`);
      cards.set(cardId, { ...current, ...to });
    },
    zones: () => zones.toJSON() as Record<string, Zone>,
    updateZone(zoneId, change) {
      const current = zones.get(zoneId);
      if (!current) throw new Error(`zone ${zoneId} is not on the canvas (zones are created over REST)`);
      zones.set(zoneId, { ...current, ...change });
    },
    observe(listener) {
      // Yjs types a map's changed keys as any; a Y.Map's keys are strings.
      const onCards = (event: Y.YMapEvent<Placement>) =>
        listener({ cards: [...(event.keysChanged as Set<string>)], zones: [] });
      const onZones = (event: Y.YMapEvent<Zone>) =>
        listener({ cards: [], zones: [...(event.keysChanged as Set<string>)] });
      cards.observe(onCards);
      zones.observe(onZones);
      return () => {
        cards.unobserve(onCards);
        zones.unobserve(onZones);
      };
    },
    setPresence: (presence) => awareness.setLocalState(presence),
    others: presenceOfOthers,
    observePresence(listener) {
      const onChange = ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }) => {
        if ([...added, ...updated, ...removed].some((clientId) => clientId !== doc.clientID))
          listener(presenceOfOthers());
      };
      awareness.on('change', onChange);
      return () => awareness.off('change', onChange);
    },
    onError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    destroy: () => provider.destroy(),
  };
}
