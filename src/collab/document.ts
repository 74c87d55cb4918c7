import * as Y from 'yjs';
import { Awareness } from 'y-protocols/awareness';
import { CARDS_MAP, cleanPlacement, cleanZone, ZONES_MAP } from './layout';
import type { StoredDocument } from './store';
import type { CardPlacement, ZoneState } from '../domain/canvas';

/** Transaction origins: changes the server makes itself, and changes already stored elsewhere. */
export const SERVER = Symbol('server');
export const REMOTE = Symbol('remote');

/** What one change to a document touched: keys with their value before it, and its Yjs updates. */
export interface Captured {
  cards: Map<string, unknown>;
  zones: Map<string, unknown>;
  updates: Uint8Array[];
}

/** Something a loaded document sends messages to: a socket of this instance. */
export interface DocumentClient {
  send(message: Uint8Array): void;
  close(code: number, reason: string): void;
  /**
   * Asks the client for whatever `doc` lacks of its changes (y-websocket's step 1); until it
   * answers, its updates that build on what is missing are set aside, as its answer brings them.
   */
  askAgain(doc: Y.Doc): void;
}

/**
 * One workshop's document while it is loaded: the Y.Doc, the awareness of its clients, the
 * clients connected to this instance, and bookkeeping for persistence and unloading.
 */
export class WorkshopDocument {
  readonly doc = new Y.Doc();
  readonly cards = this.doc.getMap<unknown>(CARDS_MAP);
  readonly zoneMap = this.doc.getMap<unknown>(ZONES_MAP);
  readonly awareness = new Awareness(this.doc);
  readonly clients = new Set<DocumentClient>();
  /** Updates stored since the snapshot (as far as this instance knows), and their bytes. */
  storedUpdates = 0;
  storedBytes = 0;
  snapshotBytes = 0;
  /** Version of the snapshot this copy contains (see `DocumentStore.compact`). */
  snapshotVersion: string | null = null;
  /** Highest stored update id this copy is known to contain (with `snapshotVersion`). */
  lastUpdateId = 0;
  /**
   * Updates applied since the stored ones were last read without their ids (from other instances,
   * or caught up with by a compaction that rolled back): while this is not 0 the copy may hold
   * more than `lastUpdateId` says.
   */
  unnumbered = 0;
  unloadTimer: NodeJS.Timeout | undefined;
  /** A re-read of the stored updates waiting to be tried again (`DocumentPersistence.resync`). */
  rereadTimer: NodeJS.Timeout | undefined;
  /** Brought in line with SQL since it was loaded (see `DocumentLifecycle.reconcile`). */
  reconciled = false;
  /** The compaction of it under way (`DocumentPersistence.compact`): a second one waits for it. */
  compacting: Promise<void> | null = null;
  private capture: Captured | null = null;

  constructor(readonly workshopId: string) {
    // The server holds no awareness state of its own; it only relays its clients'.
    this.awareness.setLocalState(null);
    this.cards.observe((event) => this.note(this.capture?.cards, event));
    this.zoneMap.observe((event) => this.note(this.capture?.zones, event));
  }

  private note(into: Map<string, unknown> | undefined, event: Y.YMapEvent<unknown>) {
    if (!into) return;
    for (const [key, change] of event.changes.keys) {
      // The first old value seen is the one from before the whole change.
      if (!into.has(key)) into.set(key, change.oldValue);
    }
  }

  /**
   * Runs `fn` and reports which keys it changed and which Yjs updates it produced. The update
   * listener is attached only meanwhile: with one attached, Yjs encodes every transaction, and
   * loading a document is one big transaction nobody needs encoded.
   */
  collect(fn: () => void): Captured {
    const outer = this.capture;
    const captured: Captured = { cards: new Map(), zones: new Map(), updates: [] };
    const onUpdate = (update: Uint8Array) => captured.updates.push(update);
    this.capture = captured;
    this.doc.on('update', onUpdate);
    try {
      fn();
    } finally {
      this.doc.off('update', onUpdate);
      this.capture = outer;
    }
    return captured;
  }

  placement(cardId: string): CardPlacement | null {
    return cleanPlacement(this.cards.get(cardId));
  }

  zone(zoneId: string): ZoneState | null {
    return cleanZone(this.zoneMap.get(zoneId));
  }

  placements(): Map<string, CardPlacement> {
    const result = new Map<string, CardPlacement>();
    for (const [id, value] of this.cards) {
      const clean = cleanPlacement(value);
      if (clean) result.set(id, clean);
    }
    return result;
  }

  zones(): Map<string, ZoneState> {
    const result = new Map<string, ZoneState>();
    for (const [id, value] of this.zoneMap) {
      const clean = cleanZone(value);
      if (clean) result.set(id, clean);
    }
    return result;
  }

  broadcast(message: Uint8Array, except?: DocumentClient): void {
    for (const client of this.clients) if (client !== except) client.send(message);
  }

  destroy(): void {
    clearTimeout(this.unloadTimer);
    clearTimeout(this.rereadTimer);
    this.awareness.destroy();
    this.doc.destroy();
  }
}

/** Merges captures: keys keep the oldest value seen, updates stay in order. */
export function mergeCaptured(first: Captured, ...rest: Captured[]): Captured {
  const merged: Captured = { cards: new Map(first.cards), zones: new Map(first.zones), updates: [...first.updates] };
  for (const next of rest) {
    for (const [key, old] of next.cards) if (!merged.cards.has(key)) merged.cards.set(key, old);
    for (const [key, old] of next.zones) if (!merged.zones.has(key)) merged.zones.set(key, old);
    merged.updates.push(...next.updates);
  }
  return merged;
}

/**
 * `Y.mergeUpdates` slows down faster than the number of updates it is given grows (3,000 small
 * updates: 140 ms at once, 17 ms in groups of 16), so long lists are merged group by group.
 */
const MERGE_GROUP = 16;

export function mergedUpdate(updates: readonly Uint8Array[]): Uint8Array | null {
  if (updates.length === 0) return null;
  let level = updates as Uint8Array[];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += MERGE_GROUP) {
      const group = level.slice(i, i + MERGE_GROUP);
      next.push(group.length === 1 ? group[0]! : Y.mergeUpdates(group));
    }
    level = next;
  }
  return level[0]!;
}

/** What a copy knows of its stored form after reading it (a snapshot is read only when it changed). */
export function countStored(entry: WorkshopDocument, stored: StoredDocument): void {
  entry.storedUpdates = stored.updates.length;
  entry.storedBytes = stored.updates.reduce((sum, { update }) => sum + update.byteLength, 0);
  if (stored.snapshot) entry.snapshotBytes = stored.snapshot.byteLength;
}

export function applyStored(entry: WorkshopDocument, stored: StoredDocument): void {
  entry.doc.transact(() => {
    if (stored.snapshot) Y.applyUpdate(entry.doc, stored.snapshot, REMOTE);
    for (const { update } of stored.updates) Y.applyUpdate(entry.doc, update, REMOTE);
  }, REMOTE);
}
