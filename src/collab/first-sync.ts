import * as Y from 'yjs';
import { mergedUpdate } from './document';
import { syncStep2UpdateMessage, updateMessage } from './protocol';
import type { StoredDocument } from './store';

/**
 * A connection to a document this instance has not loaded. Building a document costs its number
 * of structs (a card moved 100,000 times leaves that many tombstones), while its stored form can
 * be sent as it is: so the client's first sync is answered from what SQLite holds, and the
 * document is loaded only once that answer is on its way. Whatever else the client sends waits
 * here, in order, and is handled on the loaded document exactly as if it had arrived then.
 *
 * The server's own step 1 (which asks the client for what the server lacks, such as edits made
 * offline) is sent only from the loaded document: those edits then arrive when the document can
 * check, repair and store them.
 */
export class PendingSync {
  /** Messages that arrived before the document was loaded, handled in order once it is. */
  readonly queue: Uint8Array[] = [];
  /** The client's step 1 was answered from `stored`. */
  answered = false;
  /** Loads the document for a client that never asks for its first sync. */
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly workshopId: string,
    /** What the client's first sync is answered from (read once, when it connected). */
    readonly stored: StoredDocument,
  ) {}

  /** The last stored update the answer holds: anything stored after it is sent on joining. */
  get lastUpdateId(): number {
    return this.stored.updates.at(-1)?.id ?? 0;
  }
}

/** True when there is a stored state to answer from (else the document is new: it is built at once). */
export function hasStoredState(stored: StoredDocument): boolean {
  return stored.snapshot !== null || stored.updates.length > 0;
}

/**
 * The answer to a client's step 1 from the stored state: the updates stored since the snapshot,
 * merged, as an update message, then the snapshot as step 2. The updates go first so that when the
 * client counts itself synced (on step 2) it holds all of it; until the snapshot arrives it keeps
 * them pending. A client that already holds part of the document gets only what it lacks.
 */
export function storedSyncAnswer(stored: StoredDocument, stateVector: Uint8Array): Uint8Array[] {
  const fresh = Y.decodeStateVector(stateVector).size === 0;
  const lacking = (update: Uint8Array) => (fresh ? update : Y.diffUpdate(update, stateVector));
  const since = mergedUpdate(stored.updates.map(({ update }) => update));
  if (!stored.snapshot) return [syncStep2UpdateMessage(lacking(since!))];
  const messages = since ? [updateMessage(lacking(since))] : [];
  messages.push(syncStep2UpdateMessage(lacking(stored.snapshot)));
  return messages;
}

/** The state an answer from `stored` gave the client: worked out once, outside the document's lock. */
export function answeredState(stored: StoredDocument): Uint8Array | undefined {
  const answered = mergedUpdate(
    [stored.snapshot, ...stored.updates.map(({ update }) => update)].filter(
      (update): update is Uint8Array => update !== null,
    ),
  );
  return answered ? Y.encodeStateVectorFromUpdate(answered) : undefined;
}

/**
 * What `doc` holds beyond `answered` (`answeredState`), as update messages (none when nothing):
 * read from the loaded document, under its lock, so nothing stored or relayed between the answer
 * and the join is missed, and nothing is read from the database meanwhile.
 */
export function newerMessages(doc: Y.Doc, answered: Uint8Array | undefined): Uint8Array[] {
  const newer = Y.encodeStateAsUpdate(doc, answered);
  return isEmptyUpdate(newer) ? [] : [updateMessage(newer)];
}

/** No structs and no deletions: what Yjs encodes when there is nothing to send. */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.byteLength === 2 && update[0] === 0 && update[1] === 0;
}
