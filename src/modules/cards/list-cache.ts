import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';

const MAX_ENTRIES = 64;
const encoder = new TextEncoder();

interface Entry {
  /** The workshop's `last_event_seq` when the body was made. */
  seq: number;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * Serialized card lists, kept until their workshop changes. Every change to a workshop's cards or
 * their feedback is logged and so moves the workshop's `last_event_seq` (also when another instance
 * made it: they share the file), which the caller has in hand from its access check: an entry made
 * at another seq is stale. Votes flowing in one workshop leave the others' lists cached. What is
 * kept is the JSON itself, so a hit costs neither serializing nor encoding (a 500-card list is
 * about 165 KB). Inside a transaction nothing is cached, since its changes may still roll back.
 */
class CardListCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly inTransaction: () => boolean) {}

  body(key: string, seq: number, compute: () => unknown): Uint8Array<ArrayBuffer> {
    if (this.inTransaction()) return encoder.encode(JSON.stringify(compute()));
    const hit = this.entries.get(key);
    if (hit && hit.seq === seq) {
      // Most recently used last, so the oldest entry is the first one evicted.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    const body = encoder.encode(JSON.stringify(compute()));
    this.entries.delete(key);
    this.entries.set(key, { seq, body });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return body;
  }
}

/** One cache per database connection, like the prepared statements. */
export const cardListCache = preparedPerDb((db: Db) => {
  const { $client } = db as Db & { $client: { inTransaction: boolean } };
  return new CardListCache(() => $client.inTransaction);
});
