import { isTransactionHandle, type Db } from '../db/database';
import { preparedPerDb } from '../db/prepared';

const MAX_ENTRIES = 256;
const encoder = new TextEncoder();

interface Entry {
  version: string;
  body: Uint8Array<ArrayBuffer>;
  /** For `bodyFor`: the users whose names the shared answer leaves out. */
  hiddenAuthors?: ReadonlySet<string>;
}

/** An answer made for many readers, and whose names it leaves out that their own readers would see. */
export interface SharedAnswer {
  value: unknown;
  hiddenAuthors: ReadonlySet<string>;
}

/**
 * Serialized answers of hot reads (a workshop, its card list), kept while their version holds.
 * The version is what the caller can vouch for: a workshop's `last_event_seq` moves with every
 * logged change to it, whichever instance made it (they share the database), and `auth_state.epoch`
 * with any change to users or organizations (the owner shown in a workshop). So votes flowing in
 * one workshop leave the others' answers cached. What is kept is the JSON itself: a hit costs
 * neither serializing nor encoding. Inside a transaction nothing is cached, since its changes may
 * still roll back.
 */
class BodyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly inTransaction: boolean) {}

  async body(key: string, version: string, compute: () => Promise<unknown>): Promise<Uint8Array<ArrayBuffer>> {
    if (this.inTransaction) return encoder.encode(JSON.stringify(await compute()));
    const hit = this.entries.get(key);
    if (hit && hit.version === version) {
      // Most recently used last, so the oldest entry is the first one evicted.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    const body = encoder.encode(JSON.stringify(await compute()));
    this.keep(key, { version, body });
    return body;
  }

  /**
   * An answer shared by the readers of `key`, made once for a reader who wrote nothing
   * (`compute(true)`), except for `readerId` when it leaves out their own name on something they
   * wrote anonymously (docs/api.md#private-writing-and-anonymous-authors): they get one of their
   * own (`compute(false)`).
   */
  async bodyFor(
    key: string,
    version: string,
    readerId: string,
    compute: (shared: boolean) => Promise<SharedAnswer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    if (this.inTransaction) return encoder.encode(JSON.stringify((await compute(false)).value));
    let entry = this.entries.get(key);
    if (entry && entry.version === version) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else {
      const shared = await compute(true);
      entry = { version, body: encoder.encode(JSON.stringify(shared.value)), hiddenAuthors: shared.hiddenAuthors };
      this.keep(key, entry);
    }
    if (!entry.hiddenAuthors?.has(readerId)) return entry.body;
    return this.body(`${key}\u0000${readerId}`, version, async () => (await compute(false)).value);
  }

  private keep(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** One cache per database handle, like the prepared statements; a transaction's handle caches nothing. */
export const bodyCache = preparedPerDb((db: Db) => new BodyCache(isTransactionHandle(db)));
