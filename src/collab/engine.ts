import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { applyAwarenessUpdate } from 'y-protocols/awareness';
import type { Config } from '../config';
import type { DatabaseHandle } from '../db/client';
import type { AccessChangedEvent, DomainEventBus, SessionRevokedEvent, WorkshopEvent } from '../modules/events/bus';
import type { WorkshopAction } from '../modules/events/changes';
import { cleanPlacement, cleanZone, isCleanPlacement, isCleanZone } from './layout';
import { CLOSE } from './protocol';
import { RedisFanout, type FanoutKind } from './redis-fanout';
import { DEFAULT_COLLAB_OPTIONS, DocumentRegistry, REMOTE, type CollabOptions } from './registry';
import { SyncSessions } from './sessions';
import { DocumentStore } from './store';
import { SyncEndpoint } from './sync-server';
import type { CardPlacement, CollabService, ZoneState } from './types';

export type { CollabOptions } from './registry';

export interface CollabDeps {
  config: Config;
  database: DatabaseHandle;
  /** Logouts and lost memberships end sync connections at once when given. */
  bus?: DomainEventBus;
}

/** Logged workshop actions after which the connections to that workshop are checked again. */
const ACCESS_ACTIONS: ReadonlySet<WorkshopAction> = new Set(['updateMember', 'removeWorkshop']);

/**
 * The Yjs side of the service: the workshop documents (`registry.ts`), their y-websocket endpoint
 * (`sync-server.ts`, `sessions.ts`), and fan-out to other instances through Redis.
 */
export class CollabEngine implements CollabService {
  private readonly registry: DocumentRegistry;
  private readonly store: DocumentStore;
  private readonly endpoint: SyncEndpoint;
  private fanoutInstance: RedisFanout | undefined;
  private readonly stopListening: () => void;

  constructor(private readonly deps: CollabDeps, options: Partial<CollabOptions> = {}) {
    this.store = new DocumentStore(deps.database.sqlite);
    const fanout = () => this.fanout();
    let sessions: SyncSessions | undefined;
    this.registry = new DocumentRegistry(this.store, deps.database.db, { ...DEFAULT_COLLAB_OPTIONS, ...options }, {
      fanout,
      awareness: (entry, changed, origin) => sessions?.relayAwareness(entry, changed, origin),
    });
    sessions = new SyncSessions(this.registry, deps.database.db, this.store, fanout);
    this.endpoint = new SyncEndpoint(deps, sessions);
    this.stopListening = this.listen(deps.bus);
  }

  /**
   * Connections opened with a revoked token, or of a user who may have lost a membership, are
   * checked at once. Other instances do not hear these events; their connections are checked on
   * every write and on every ping (`sync-server.ts`).
   */
  private listen(bus: DomainEventBus | undefined): () => void {
    if (!bus) return () => {};
    const revoked = ({ tokenHash }: SessionRevokedEvent) => this.endpoint.recheck((client) => client.tokenHash === tokenHash);
    const accessChanged = ({ userId }: AccessChangedEvent) => this.endpoint.recheck((client) => client.userId === userId);
    const workshop = (event: WorkshopEvent) => {
      if (ACCESS_ACTIONS.has(event.action)) this.endpoint.recheck((client) => client.document?.workshopId === event.workshopId);
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
    return this.registry.options;
  }

  setCardPlacements(workshopId: string, placements: Record<string, Partial<CardPlacement>>): void {
    this.registry.use(workshopId, (entry) =>
      this.registry.serverChange(entry, () => {
        for (const [cardId, patch] of Object.entries(placements)) {
          const raw = entry.cards.get(cardId);
          const current = cleanPlacement(raw) ?? { position: 0, x: null, y: null };
          const next = cleanPlacement({
            position: patch.position ?? current.position,
            x: patch.x !== undefined ? patch.x : current.x,
            y: patch.y !== undefined ? patch.y : current.y,
          });
          if (next && !isCleanPlacement(raw, next)) entry.cards.set(cardId, next);
        }
      }),
    );
  }

  removeCards(workshopId: string, cardIds: readonly string[]): void {
    if (cardIds.length === 0) return;
    this.registry.use(workshopId, (entry) =>
      this.registry.serverChange(entry, () => {
        for (const cardId of cardIds) if (entry.cards.has(cardId)) entry.cards.delete(cardId);
      }),
    );
  }

  cardPlacements(workshopId: string): Map<string, CardPlacement> {
    return this.registry.use(workshopId, (entry) => entry.placements()) ?? new Map();
  }

  setZones(workshopId: string, zones: Record<string, ZoneState | null>): void {
    this.registry.use(workshopId, (entry) =>
      this.registry.serverChange(entry, () => {
        for (const [zoneId, zone] of Object.entries(zones)) {
          const raw = entry.zoneMap.get(zoneId);
          if (zone === null) {
            if (raw !== undefined) entry.zoneMap.delete(zoneId);
            continue;
          }
          const clean = cleanZone(zone);
          if (clean && !isCleanZone(raw, clean)) entry.zoneMap.set(zoneId, clean);
        }
      }),
    );
  }

  zones(workshopId: string): Map<string, ZoneState> {
    return this.registry.use(workshopId, (entry) => entry.zones()) ?? new Map();
  }

  forgetWorkshop(workshopId: string): void {
    const entry = this.registry.loaded(workshopId);
    if (entry) this.registry.unload(entry, { compact: false, close: CLOSE.notFound });
    try {
      this.store.forget(workshopId);
    } catch (err) {
      console.error(`[collab] could not drop the stored document of workshop ${workshopId}`, err);
    }
    this.fanout()?.publish(workshopId, 'forget');
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.endpoint.handleUpgrade(request, socket, head);
  }

  async close(): Promise<void> {
    if (this.registry.closed) return;
    this.registry.closed = true;
    this.stopListening();
    await this.endpoint.close();
    for (const entry of this.registry.all()) this.registry.unload(entry, { compact: true });
    this.fanoutInstance?.close();
  }

  /** Workshop ids of the documents loaded in this instance (for tests and diagnostics). */
  loadedDocuments(): string[] {
    return this.registry.all().map((entry) => entry.workshopId);
  }

  /** Drops a loaded document, compacting it or not (for tools measuring loads). */
  unloadNow(workshopId: string, options: { compact: boolean }): void {
    const entry = this.registry.loaded(workshopId);
    if (entry) this.registry.unload(entry, options);
  }

  /** The Redis fan-out, created with the first document loaded (so a process that loads none never connects). */
  private fanout(): RedisFanout | undefined {
    const url = this.deps.config.redisUrl;
    if (!url || this.registry.closed) return this.fanoutInstance;
    this.fanoutInstance ??= new RedisFanout(url, {
      receive: (workshopId, kind, payload) => this.fromOtherInstance(workshopId, kind, payload),
      recovered: () => {
        for (const entry of this.registry.all()) {
          this.registry.resync(entry);
          this.fanoutInstance?.publish(entry.workshopId, 'resync');
        }
      },
    });
    return this.fanoutInstance;
  }

  private fromOtherInstance(workshopId: string, kind: FanoutKind, payload: Uint8Array) {
    const entry = this.registry.loaded(workshopId);
    if (!entry) return;
    switch (kind) {
      case 'update':
        this.registry.remoteChange(entry, payload);
        break;
      case 'awareness':
        applyAwarenessUpdate(entry.awareness, payload, REMOTE);
        break;
      case 'resync':
        this.registry.resync(entry);
        break;
      case 'forget':
        this.registry.unload(entry, { compact: false, close: CLOSE.notFound });
        break;
    }
  }
}
