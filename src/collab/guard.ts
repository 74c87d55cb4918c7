import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type { Awareness } from 'y-protocols/awareness';
import * as Y from 'yjs';
import { CARDS_MAP, ZONES_MAP } from './layout';

/** An update a client sent is refused as a whole (the socket is closed with 4400). */
export class RefusedUpdate extends Error {}

/** Refused for what it depends on, not for what it writes: the document lacks changes it builds on. */
export class IncompleteUpdate extends RefusedUpdate {}

/**
 * Updates carry moves and zone edits, a few hundred bytes each; a client's catch-up after working
 * offline stays well below this too.
 */
export const MAX_UPDATE_BYTES = 512 * 1024;

/** Map values clients may write: plain JSON (`map.set(key, {...})`), binary, and deletions. */
const ALLOWED_CONTENT = [Y.ContentAny, Y.ContentDeleted, Y.ContentJSON, Y.ContentBinary];

/**
 * Checks a client's update against the document before anything is applied. Refused:
 * - writes outside the `cards` and `zones` maps, keyless items under them (`getArray('cards')`),
 *   nested types and sub-documents: none of that is read, so it would bypass every rule;
 * - updates that depend on changes the document does not have (a struct whose clock starts past
 *   the document's state for its client, references to unknown items, deletions of unknown
 *   clocks, skips). Yjs would keep them pending and apply them later inside someone else's
 *   transaction, judged with that other client's rights.
 */
export function checkClientUpdate(doc: Y.Doc, update: Uint8Array): void {
  if (update.byteLength > MAX_UPDATE_BYTES) throw new RefusedUpdate('update too large');
  let decoded: ReturnType<typeof Y.decodeUpdate>;
  try {
    decoded = Y.decodeUpdate(update);
  } catch {
    throw new RefusedUpdate('malformed update');
  }
  const { structs, ds } = decoded;
  // First pass: every client's structs must continue what the document has; then `end` is what
  // document and update hold together, and every reference must point below it.
  const end = new Map<number, number>();
  const known = (client: number) => end.get(client) ?? Y.getState(doc.store, client);
  for (const struct of structs) {
    if (struct instanceof Y.Skip) throw new IncompleteUpdate('update with gaps');
    const { client, clock } = struct.id;
    const state = known(client);
    if (clock > state) throw new IncompleteUpdate('update depends on changes the server does not have');
    end.set(client, Math.max(state, clock + struct.length));
  }
  const exists = (id: Y.ID | null) => id === null || id.clock < known(id.client);
  for (const struct of structs) {
    if (!(struct instanceof Y.Item)) continue;
    if (!exists(struct.origin) || !exists(struct.rightOrigin))
      throw new IncompleteUpdate('update refers to unknown items');
    const parent = struct.parent as unknown;
    if (parent instanceof Y.ID) throw new RefusedUpdate('nested types are not part of the document');
    if (typeof parent === 'string') {
      if (parent !== CARDS_MAP && parent !== ZONES_MAP)
        throw new RefusedUpdate(`update writes to the unknown root "${parent}"`);
      if (struct.parentSub === null) throw new RefusedUpdate('update writes keyless items');
    }
    if (!ALLOWED_CONTENT.some((kind) => struct.content instanceof kind))
      throw new RefusedUpdate('update writes content of a kind the document does not hold');
  }
  for (const [client, ranges] of ds.clients) {
    const state = known(client);
    for (const { clock, len } of ranges)
      if (clock + len > state) throw new IncompleteUpdate('update deletes unknown items');
  }
}

/**
 * Why a client's update may not be applied: `refused` (it breaks the document's rules), or
 * `leftAside` (it builds on changes the document lacks, and the client's pending answer to step 1
 * brings it whole); null when it may.
 */
export function screenClientUpdate(
  doc: Y.Doc,
  update: Uint8Array,
  answerPending: boolean,
): 'refused' | 'leftAside' | null {
  try {
    checkClientUpdate(doc, update);
    return null;
  } catch (err) {
    if (err instanceof IncompleteUpdate && answerPending) return 'leftAside';
    if (!(err instanceof RefusedUpdate)) throw err;
    return 'refused';
  }
}

/** After applying: anything left pending means the update was refused after all. */
export function leftPending(doc: Y.Doc): boolean {
  return doc.store.pendingStructs !== null || doc.store.pendingDs !== null;
}

/** Awareness client ids one connection may announce (a y-websocket client uses one). */
const MAX_AWARENESS_IDS = 8;

/**
 * Keeps only the entries of an awareness update that belong to the connection: ids it announced
 * before, or ids nobody currently holds. A member cannot overwrite or remove other people's
 * cursors. Returns null when nothing is left; throws on a malformed update.
 */
export function ownAwarenessEntries(
  awareness: Awareness,
  owned: ReadonlySet<number>,
  update: Uint8Array,
): Uint8Array | null {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const kept: Array<[number, number, string]> = [];
  const states = awareness.getStates();
  let claimed = owned.size;
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(decoder);
    const clock = decoding.readVarUint(decoder);
    const state = decoding.readVarString(decoder);
    JSON.parse(state);
    if (owned.has(clientId)) kept.push([clientId, clock, state]);
    else if (!states.has(clientId) && claimed < MAX_AWARENESS_IDS) {
      claimed += 1;
      kept.push([clientId, clock, state]);
    }
  }
  if (kept.length === 0) return null;
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, kept.length);
  for (const [clientId, clock, state] of kept) {
    encoding.writeVarUint(encoder, clientId);
    encoding.writeVarUint(encoder, clock);
    encoding.writeVarString(encoder, state);
  }
  return encoding.toUint8Array(encoder);
}
