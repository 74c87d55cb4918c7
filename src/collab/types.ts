import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Db } from '../db/database';
import type { AuthorVisibility } from '../domain/permissions';
import type { ChangeRecorder } from '../domain/recorder';
import type { CardPlacement, ZoneState } from '../domain/canvas';

/**
 * What the rest of the service may ask of the Yjs documents. The document of a workshop holds
 * `cards` (card id → {position, x, y}) and `zones` (zone id → {name, x, y, rows, cols, cluster_id});
 * it is the truth for those values, and SQL keeps a copy for sorting and exports.
 */
/**
 * What a write transaction offers the documents: its log (for what reconciling changes in the SQL
 * copy), and work after its commit or after its rollback.
 */
export type TransactionHooks = Pick<ChangeRecorder, 'record' | 'afterCommit' | 'onRollback'>;

/** An open write transaction: its handle and its hooks. Server changes to a document run inside one. */
export interface OpenWrite {
  tx: Db;
  changes: TransactionHooks;
}

/** Card placements a REST write hands to a document: new values by card id, and cards it deleted. */
export interface PlacementChange {
  placements: Record<string, Partial<CardPlacement>>;
  removed?: readonly string[];
}

/** What the sync side holds in this instance now (metrics). */
export interface CollabUsage {
  /** Open y-websocket connections that passed their checks. */
  connections: number;
  /** Workshop documents loaded. */
  documents: number;
  /** Whether the Redis fan-out is up; undefined without `REDIS_URL`, or before the first document opened it. */
  redisUp: boolean | undefined;
  /** Messages received on sync connections and not handled yet (each connection's is bounded: `sync-server.ts`). */
  syncBacklog: number;
}

export interface CollabService {
  /**
   * Merges placements into the workshop's document and removes the deleted cards from it, INSIDE
   * the caller's write transaction: the document update is stored and copied to SQL in that
   * transaction, relayed to clients and other instances once it commits, and the document is
   * dropped (to reload from SQLite) when it rolls back. Unknown workshops are ignored.
   */
  placeCards(write: OpenWrite, workshopId: string, change: PlacementChange): Promise<void>;
  /**
   * Merges zones into the document (`null` removes one) INSIDE the caller's write transaction, as
   * `placeCards` does: stored and copied to SQL with the caller's rows, relayed once it commits,
   * and the document dropped if it rolls back. So SQL and the document never part.
   */
  placeZones(write: OpenWrite, workshopId: string, zones: Record<string, ZoneState | null>): Promise<void>;
  /**
   * The document's zones, by zone id, loading the document when needed, inside the caller's write
   * transaction: as stored, with what other instances stored and have not relayed yet.
   */
  zones(write: OpenWrite, workshopId: string): Promise<Map<string, ZoneState>>;
  /**
   * For reads: the document's zones when this instance has it loaded (brought up to what is
   * stored), else null, loading nothing. Then the SQL copy holds what the document would: every
   * stored document update writes the SQL copy of what it changed in the same transaction.
   */
  zonesIfLoaded(workshopId: string): Promise<Map<string, ZoneState> | null>;
  /** Drops a workshop's loaded document (the workshop was deleted; its stored history went with its rows). */
  forgetWorkshop(workshopId: string): Promise<void>;
  /**
   * Takes an HTTP upgrade for the y-websocket endpoint (`/v1/sync/:workshop_id`) and returns true;
   * once closing, it answers those with 503 and ends the socket itself. Returns false, touching
   * nothing, for any other path (the caller answers those).
   */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Closes the sync connections (with 1001: clients reconnect, to another instance or after a
   * restart) and answers new ones with 503. Documents stay loaded meanwhile: writes still under
   * way store their updates and relay them to other instances as usual, and each document is
   * unloaded once its last use ends.
   */
  closeConnections(): Promise<void>;
  /**
   * `closeConnections`, then compacts and unloads every loaded document, and closes Redis
   * connections. Calls made afterwards still reach the database, without keeping documents loaded.
   */
  close(): Promise<void>;
  /** Counts of what this instance holds now; cheap enough to read on every metrics scrape. */
  usage(): CollabUsage;
}

/** A card as the documents need it from SQL: its stack, its author, and the SQL copy of its placement. */
export interface CardCopy {
  id: string;
  parentId: string | null;
  /** Null once its author's account is deleted. */
  userId: string | null;
  /**
   * Whether its author is shown (docs/api.md#private-writing-and-anonymous-authors): a move of
   * one's own anonymous card names no mover.
   */
  authorVisibility: AuthorVisibility;
  position: number;
  x: number | null;
  y: number | null;
}

export interface ZoneCopy extends ZoneState {
  id: string;
}

/**
 * The SQL copy of what the documents hold, read and written by the cards and canvas modules
 * (`cards/placement-copy.ts`, `canvas/zone-copy.ts`). Writes run inside the transaction storing
 * the document update; `writeCard` is the only code that changes an existing card's placement.
 */
export interface LayoutCopy {
  cards(db: Db, workshopId: string): Promise<CardCopy[]>;
  card(db: Db, workshopId: string, cardId: string): Promise<CardCopy | undefined>;
  /** The cards sharing a parent (the ideas of a cluster, or all clusters), in SQL order. */
  stack(db: Db, workshopId: string, parentId: string | null): Promise<CardCopy[]>;
  isCluster(db: Db, workshopId: string, cardId: string): Promise<boolean>;
  /** Writes a card's placement; rows already equal are left untouched. */
  writeCard(tx: Db, workshopId: string, cardId: string, placement: CardPlacement): Promise<void>;
  zones(db: Db, workshopId: string): Promise<ZoneCopy[]>;
  zone(db: Db, workshopId: string, zoneId: string): Promise<ZoneCopy | undefined>;
  writeZone(tx: Db, workshopId: string, zoneId: string, zone: ZoneState): Promise<void>;
}

/** What the sync endpoint asks of authentication (`auth/tokens.ts`: `sessionAuth`, `bearerToken`). */
export interface SessionCheck {
  /** The token of an `Authorization: Bearer` header; null for anything else. */
  bearerToken(header: string | null | undefined): string | null;
  /** The token's user and hash, and how its session was opened; null for an unknown, expired or revoked token. */
  authenticate(token: string): Promise<{ user: { id: string }; tokenHash: string; method: 'password' | 'oidc' } | null>;
  /** Whether a token (by hash) still works. */
  isAlive(tokenHash: string): Promise<boolean>;
}
