import { applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness';
import { REMOTE, type WorkshopDocument } from './document';
import type { CollabExtension } from './hooks';
import { RedisFanout, type FanoutKind } from './redis-fanout';

/** What the fan-out does to this instance's documents when another instance speaks. */
export interface FanoutHost {
  loaded(workshopId: string): WorkshopDocument | undefined;
  all(): WorkshopDocument[];
  /** Applies an update another instance stored. */
  remoteChange(entry: WorkshopDocument, update: Uint8Array): Promise<void>;
  /** Re-reads what the database holds for the document. */
  resync(entry: WorkshopDocument): Promise<void>;
  /** The workshop was deleted through another instance. */
  forget(entry: WorkshopDocument): Promise<void>;
}

/**
 * Two instances behave as one (docs/realtime.md#across-instances): each loaded document subscribes to its workshop's
 * channel, every stored update and awareness change is published there, and what other instances
 * publish is applied here. Redis is connected with the first document loaded, so a process that
 * loads none never connects.
 */
export class RedisExtension implements CollabExtension {
  private fanout: RedisFanout | undefined;
  private destroyed = false;

  constructor(
    private readonly url: string,
    private readonly host: FanoutHost,
  ) {}

  private connection(): RedisFanout | undefined {
    if (this.destroyed) return this.fanout;
    this.fanout ??= new RedisFanout(this.url, {
      receive: (workshopId, kind, payload) => this.receive(workshopId, kind, payload),
      recovered: () => {
        for (const entry of this.host.all()) {
          void this.host.resync(entry);
          this.fanout?.publish(entry.workshopId, 'resync');
        }
      },
    });
    return this.fanout;
  }

  /** Whether both Redis connections are up; undefined until the first document opened them. */
  up(): boolean | undefined {
    return this.fanout?.healthy();
  }

  onLoadDocument(entry: WorkshopDocument): void {
    // What other instances stored between the load and the subscription taking effect was
    // published to nobody here: once Redis confirms it, the stored updates are read again.
    this.connection()
      ?.subscribe(entry.workshopId)
      .then(
        () => {
          if (this.host.loaded(entry.workshopId) === entry) void this.host.resync(entry);
        },
        () => {},
      );
  }

  onStoreDocument(entry: WorkshopDocument, update: Uint8Array): void {
    this.connection()?.publish(entry.workshopId, 'update', update);
  }

  afterUnloadDocument(workshopId: string): void {
    this.fanout?.unsubscribe(workshopId);
  }

  onAwarenessUpdate(entry: WorkshopDocument, changed: number[], origin: unknown): void {
    if (origin !== REMOTE)
      this.connection()?.publish(entry.workshopId, 'awareness', encodeAwarenessUpdate(entry.awareness, changed));
  }

  afterForgetDocument(workshopId: string): void {
    this.connection()?.publish(workshopId, 'forget');
  }

  onDestroy(): void {
    this.destroyed = true;
    this.fanout?.close();
  }

  private receive(workshopId: string, kind: FanoutKind, payload: Uint8Array) {
    const entry = this.host.loaded(workshopId);
    if (!entry) return;
    switch (kind) {
      case 'update':
        void this.host.remoteChange(entry, payload);
        break;
      case 'awareness':
        applyAwarenessUpdate(entry.awareness, payload, REMOTE);
        break;
      case 'resync':
        void this.host.resync(entry);
        break;
      case 'forget':
        void this.host.forget(entry);
        break;
    }
  }
}
