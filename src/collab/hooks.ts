import type { WorkshopDocument } from './document';

/**
 * Named points in a document's life where the rest of the engine plugs in, named the way
 * Hocuspocus names its hooks. The Redis fan-out (`redis-extension.ts`) and the awareness relay to
 * this instance's sockets (`sessions.ts`) are extensions; the lifecycle and persistence call the
 * hooks and know nothing of them. Every hook is called after the fact it names is settled: a
 * store hook only once the update is committed, never for a change that rolled back.
 */
export interface CollabExtension {
  /**
   * A document was loaded from the database on this instance: at once for a load outside writes
   * (before it is brought in line with SQL), and for one loaded inside a write once that write
   * committed (it was brought in line within it); never for one whose write rolled back.
   */
  onLoadDocument?(entry: WorkshopDocument): void;
  /** An update was stored in SQLite (committed) and relayed to this instance's clients. */
  onStoreDocument?(entry: WorkshopDocument, update: Uint8Array): void;
  /** A document left this instance's memory (idle, dropped after a failure, forgotten). */
  afterUnloadDocument?(workshopId: string): void;
  /** A loaded document's awareness changed; `origin` is the client that changed it, `REMOTE`, or null. */
  onAwarenessUpdate?(entry: WorkshopDocument, changed: number[], origin: unknown): void;
  /** A workshop's document and its stored history were deleted (loaded here or not). */
  afterForgetDocument?(workshopId: string): void;
  /** The service is closing: release connections. */
  onDestroy?(): void;
}

type Hook = keyof CollabExtension;
type HookArgs<K extends Hook> = Parameters<NonNullable<CollabExtension[K]>>;

/** The registered extensions, called in registration order; one failing does not stop the others. */
export class Extensions {
  private readonly list: CollabExtension[] = [];

  register(extension: CollabExtension): void {
    this.list.push(extension);
  }

  call<K extends Hook>(hook: K, ...args: HookArgs<K>): void {
    for (const extension of this.list) {
      const fn = extension[hook] as ((...a: HookArgs<K>) => void) | undefined;
      if (!fn) continue;
      try {
        fn.apply(extension, args);
      } catch (err) {
        console.error(`[collab] extension hook ${hook} failed`, err);
      }
    }
  }
}
