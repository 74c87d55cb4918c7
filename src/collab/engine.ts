import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import type { Database } from '../db/database';
import type { AccessChangedEvent, DomainEventBus, SessionRevokedEvent, WorkshopEvent } from '../domain/bus';
import type { WorkshopAction } from '../domain/events';
import type { WorkshopDocument } from './document';
import { DEFAULT_COLLAB_OPTIONS, DocumentLifecycle, type CollabOptions } from './documents';
import { Extensions, type CollabExtension } from './hooks';
import { CLOSE } from './protocol';
import { RedisExtension } from './redis-extension';
import { applyPlacements, applyZones } from './server-changes';
import { SyncSessions } from './sessions';
import { DocumentStore } from './store';
import { SyncEndpoint } from './sync-server';
import type { CollabService, CollabUsage, LayoutCopy, OpenWrite, PlacementChange, SessionCheck } from './types';
import type { CardPlacement, ZoneState } from '../domain/canvas';

export type { CollabOptions } from './documents';

export interface CollabDeps {
  config: Config;
  database: Database;
  /** Client moves are logged through it; logouts and lost memberships end sync connections at once. */
  bus: DomainEventBus;
  /** Who a sync connection's token is, and whether it still works (`auth/service.ts`). */
  auth: SessionCheck;
  /** The SQL copy of placements and zones (`cards/placement-copy.ts`, `canvas/zone-copy.ts`). */
  layout: LayoutCopy;
}

/** Logged workshop actions after which the connections to that workshop are checked again. */
const ACCESS_ACTIONS: ReadonlySet<WorkshopAction> = new Set(['updateMember', 'removeWorkshop']);

/**
 * The Yjs side of the service: the workshop documents (`documents.ts` for their life,
 * `persistence.ts` for their changes), their y-websocket endpoint (`sync-server.ts`,
 * `sessions.ts`), and extensions on the documents' hooks (`hooks.ts`): the awareness relay to
 * local sockets and, with `REDIS_URL`, the fan-out to other instances.
 */
export class CollabEngine implements CollabService {
  private readonly documents: DocumentLifecycle;
  private readonly extensions = new Extensions();
  private readonly endpoint: SyncEndpoint;
  private readonly stopListening: () => void;
  private readonly redis: RedisExtension | undefined;

  constructor(deps: CollabDeps, options: Partial<CollabOptions> = {}, extensions: CollabExtension[] = []) {
    this.documents = new DocumentLifecycle(
      new DocumentStore(deps.database),
      deps.layout,
      { ...DEFAULT_COLLAB_OPTIONS, ...options },
      this.extensions,
      deps,
    );
    const sessions = new SyncSessions(this.documents, deps.database.db, deps.auth);
    this.extensions.register(sessions);
    if (deps.config.redisUrl)
      this.extensions.register((this.redis = new RedisExtension(deps.config.redisUrl, this.fanoutHost())));
    for (const extension of extensions) this.extensions.register(extension);
    this.endpoint = new SyncEndpoint(deps.auth, sessions);
    this.stopListening = this.listen(deps.bus);
  }

  private fanoutHost() {
    const documents = this.documents;
    return {
      loaded: (workshopId: string) => documents.loaded(workshopId),
      all: () => documents.all(),
      remoteChange: documents.persistence.remoteChange.bind(documents.persistence),
      resync: documents.persistence.resync.bind(documents.persistence),
      forget: (entry: WorkshopDocument) => documents.unload(entry, { compact: false, close: CLOSE.notFound }),
    };
  }

  /**
   * Connections opened with a revoked token, or of a user who may have lost a membership, are
   * checked at once. Other instances do not hear these events; their connections are checked on
   * every write and on every ping (`sync-server.ts`).
   */
  private listen(bus: DomainEventBus): () => void {
    const revoked = ({ tokenHash }: SessionRevokedEvent) =>
      this.endpoint.recheck((client) => client.tokenHash === tokenHash);
    const accessChanged = ({ userId }: AccessChangedEvent) =>
      this.endpoint.recheck((client) => client.userId === userId);
    const workshop = (event: WorkshopEvent) => {
      if (ACCESS_ACTIONS.has(event.action))
        this.endpoint.recheck((client) => client.document?.workshopId === event.workshopId);
    };
    bus.on('session-revoked', revoked);
    bus.on('access-changed', accessChanged);
    bus.on('workshop', workshop);
    return () => {
      bus.off('session-revoked', revoked);
      bus.off('access-changed', accessChanged);
      bus.off('workshop', workshop);
    };
  }

  /** Timings and thresholds; tests shorten them. */
  get options(): CollabOptions {
    return this.documents.options;
  }

  async placeCards(write: OpenWrite, workshopId: string, change: PlacementChange): Promise<void> {
    if (Object.keys(change.placements).length === 0 && !change.removed?.length) return;
    const entry = await this.documents.openInWrite(write, workshopId);
    if (entry) await this.documents.persistence.serverChange(write, entry, () => applyPlacements(entry, change));
  }

  async placeZones(write: OpenWrite, workshopId: string, zones: Record<string, ZoneState | null>): Promise<void> {
    if (Object.keys(zones).length === 0) return;
    const entry = await this.documents.openInWrite(write, workshopId);
    if (entry) await this.documents.persistence.serverChange(write, entry, () => applyZones(entry, zones));
  }

  async zones(write: OpenWrite, workshopId: string): Promise<Map<string, ZoneState>> {
    const entry = await this.documents.openInWrite(write, workshopId);
    if (!entry) return new Map();
    // The caller decides from these values (which zone holds a cluster's link): the stored ones.
    await this.documents.persistence.catchUpInWrite(write, entry);
    return entry.zones();
  }

  async zonesIfLoaded(workshopId: string): Promise<Map<string, ZoneState> | null> {
    return (await this.documents.readIfLoaded(workshopId, (entry) => entry.zones())) ?? null;
  }

  async forgetWorkshop(workshopId: string): Promise<void> {
    const entry = this.documents.loaded(workshopId);
    // Its stored history went with the workshop's rows.
    if (entry) await this.documents.unload(entry, { compact: false, close: CLOSE.notFound });
    this.extensions.call('afterForgetDocument', workshopId);
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.endpoint.handleUpgrade(request, socket, head);
  }

  private connectionsClosed: Promise<void> | undefined;
  private closed: Promise<void> | undefined;

  closeConnections(): Promise<void> {
    this.connectionsClosed ??= (async () => {
      // From here a document is unloaded as soon as its last use ends.
      this.documents.closed = true;
      await this.endpoint.close();
    })();
    return this.connectionsClosed;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      await this.closeConnections();
      this.stopListening();
      await Promise.all(this.documents.all().map((entry) => this.documents.unload(entry, { compact: true })));
      this.extensions.call('onDestroy');
    })();
    return this.closed;
  }

  usage(): CollabUsage {
    return {
      connections: this.endpoint.connections,
      documents: this.documents.all().length,
      redisUp: this.redis?.up(),
      syncBacklog: this.endpoint.backlog,
    };
  }

  /**
   * The document's placements, by card id, loading the document when needed (for tests and
   * diagnostics: REST reads take placements from the SQL copy, see `zonesIfLoaded` for why).
   */
  async cardPlacements(workshopId: string): Promise<Map<string, CardPlacement>> {
    return (await this.documents.read(workshopId, (entry) => entry.placements())) ?? new Map();
  }

  /** Workshop ids of the documents loaded in this instance (for tests and diagnostics). */
  loadedDocuments(): string[] {
    return this.documents.all().map((entry) => entry.workshopId);
  }

  /** How many hold or wait for a workshop document's lock now (for tests and diagnostics). */
  lockQueue(workshopId: string): number {
    return this.documents.locks.queue(workshopId);
  }

  /** Drops a loaded document, compacting it or not (for tools measuring loads). */
  async unloadNow(workshopId: string, options: { compact: boolean }): Promise<void> {
    const entry = this.documents.loaded(workshopId);
    if (entry) await this.documents.unload(entry, options);
  }
}
