import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * What the rest of the service may ask of the Yjs documents. The document of a workshop holds
 * `cards` (card id → {position, x, y}) and `zones` (zone id → {name, x, y, rows, cols, cluster_id});
 * it is the truth for those values, and SQL keeps a copy for sorting and exports.
 */
export interface CardPlacement {
  position: number;
  x: number | null;
  y: number | null;
}

export interface ZoneState {
  name: string;
  x: number;
  y: number;
  rows: number;
  cols: number;
  cluster_id: string | null;
}

export interface CollabService {
  /**
   * Merges placements into the workshop's document (loading it when needed), persists the update
   * with the SQL copy, then relays it to connected clients and other instances. Call after the SQL
   * write committed (e.g. from `changes.afterCommit`). Unknown workshops are ignored.
   */
  setCardPlacements(workshopId: string, placements: Record<string, Partial<CardPlacement>>): void;
  /** Removes cards from the document (deleted, merged or replaced cards). */
  removeCards(workshopId: string, cardIds: readonly string[]): void;
  /** The document's placements, by card id. */
  cardPlacements(workshopId: string): Map<string, CardPlacement>;
  /** Merges zones into the document; `null` removes a zone. */
  setZones(workshopId: string, zones: Record<string, ZoneState | null>): void;
  /** The document's zones, by zone id. */
  zones(workshopId: string): Map<string, ZoneState>;
  /** Drops a workshop's document and its stored history (the workshop was deleted). */
  forgetWorkshop(workshopId: string): void;
  /**
   * Takes an HTTP upgrade for the y-websocket endpoint (`/v1/sync/:workshop_id`) and returns true;
   * once closing, it answers those with 503 and ends the socket itself. Returns false, touching
   * nothing, for any other path (the caller answers those).
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Closes the sync connections, compacts and unloads every loaded document, and closes Redis
   * connections. Calls made afterwards still reach SQLite, without keeping documents loaded.
   */
  close(): Promise<void>;
}
