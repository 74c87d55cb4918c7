import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { encodeAwarenessUpdate, type Awareness } from 'y-protocols/awareness';
import * as sync from 'y-protocols/sync';
import type * as Y from 'yjs';

/** y-websocket message types (first varuint of every message). */
export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;
export const MESSAGE_AUTH = 2;
export const MESSAGE_QUERY_AWARENESS = 3;

/** Close codes; 44xx tell y-websocket clients not to reconnect. */
export const CLOSE = {
  badMessage: { code: 4400, reason: 'invalid_request' },
  unauthenticated: { code: 4401, reason: 'unauthenticated' },
  /** A password session, on a workshop of an organization that requires single sign-on. */
  ssoRequired: { code: 4403, reason: 'sso_required' },
  notFound: { code: 4404, reason: 'not_found' },
  /** Transient: the client reconnects and syncs again. */
  retry: { code: 1011, reason: 'try_again' },
  /** More messages before the connection was let in than a y-websocket client sends (it may reconnect). */
  tooManyMessages: { code: 1008, reason: 'too_many_messages' },
  shutdown: { code: 1001, reason: 'server_shutdown' },
} as const;

export function syncStep1Message(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

export function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

export function awarenessMessage(awareness: Awareness, clients: number[]): Uint8Array {
  return awarenessUpdateMessage(encodeAwarenessUpdate(awareness, clients));
}

export function awarenessUpdateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** What a client sent, decoded far enough for the server to act on it. */
export type ClientMessage =
  | { kind: 'syncStep1'; stateVector: Uint8Array }
  /** `answer`: a step 2, the client's answer to the server's step 1 (everything it has that the server lacked). */
  | { kind: 'update'; update: Uint8Array; answer: boolean }
  | { kind: 'awareness'; update: Uint8Array }
  | { kind: 'queryAwareness' }
  | { kind: 'ignored' };

/** Decodes one client message; throws on malformed input. */
export function readClientMessage(data: Uint8Array): ClientMessage {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  switch (type) {
    case MESSAGE_SYNC: {
      const step = decoding.readVarUint(decoder);
      if (step === sync.messageYjsSyncStep1)
        return { kind: 'syncStep1', stateVector: decoding.readVarUint8Array(decoder) };
      if (step === sync.messageYjsSyncStep2 || step === sync.messageYjsUpdate)
        return {
          kind: 'update',
          update: decoding.readVarUint8Array(decoder),
          answer: step === sync.messageYjsSyncStep2,
        };
      throw new Error(`unknown sync step ${step}`);
    }
    case MESSAGE_AWARENESS:
      return { kind: 'awareness', update: decoding.readVarUint8Array(decoder) };
    case MESSAGE_QUERY_AWARENESS:
      return { kind: 'queryAwareness' };
    case MESSAGE_AUTH:
      return { kind: 'ignored' };
    default:
      throw new Error(`unknown message type ${type}`);
  }
}

/** The server's answer to a client's step 1: what the client lacks. */
export function syncStep2Message(doc: Y.Doc, stateVector: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  sync.writeSyncStep2(encoder, doc, stateVector);
  return encoding.toUint8Array(encoder);
}

/** The same answer, already encoded as an update (made from the stored state, see `first-sync.ts`). */
export function syncStep2UpdateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  encoding.writeVarUint(encoder, sync.messageYjsSyncStep2);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}
