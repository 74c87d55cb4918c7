import { applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { Db } from '../db/client';
import { AppError } from '../http/errors';
import { loadAccess } from '../modules/workshops/access';
import type { WorkshopDocument } from './document';
import { CARDS_MAP, ZONES_MAP } from './layout';
import { awarenessMessage, CLOSE, readClientMessage, syncStep1Message, syncStep2Message } from './protocol';
import type { RedisFanout } from './redis-fanout';
import { REMOTE, type DocumentRegistry } from './registry';
import { SyncClient, type SyncHost } from './sync-server';

/**
 * What happens on a sync socket once the endpoint accepted it: joining a document (members only,
 * checked again here), the y-websocket sync and awareness messages, and leaving.
 */
export class SyncSessions implements SyncHost {
  constructor(
    private readonly registry: DocumentRegistry,
    private readonly db: Db,
    private readonly fanout: () => RedisFanout | undefined,
  ) {}

  connect(workshopId: string, client: SyncClient): boolean {
    if (this.registry.closed) return false;
    try {
      loadAccess(this.db, workshopId, client.userId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return false;
      throw err;
    }
    const entry = this.registry.open(workshopId);
    if (!entry) return false;
    clearTimeout(entry.unloadTimer);
    entry.clients.add(client);
    client.document = entry;
    client.send(syncStep1Message(entry.doc));
    const states = [...entry.awareness.getStates().keys()];
    if (states.length > 0) client.send(awarenessMessage(entry.awareness, states));
    return true;
  }

  receive(client: SyncClient, data: Uint8Array): void {
    const entry = client.document;
    if (!entry || this.registry.loaded(entry.workshopId) !== entry) return;
    let message;
    try {
      message = readClientMessage(data);
      if (message.kind === 'update') checkUpdate(message.update);
    } catch {
      client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
      return;
    }
    switch (message.kind) {
      case 'syncStep1':
        client.send(syncStep2Message(entry.doc, message.stateVector));
        break;
      case 'update':
        this.registry.clientChange(entry, client, client.userId, message.update);
        break;
      case 'awareness':
        try {
          applyAwarenessUpdate(entry.awareness, message.update, client);
        } catch {
          client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
        }
        break;
      case 'queryAwareness':
        client.send(awarenessMessage(entry.awareness, [...entry.awareness.getStates().keys()]));
        break;
      case 'ignored':
        break;
    }
  }

  disconnect(client: SyncClient): void {
    const entry = client.document;
    if (!entry || !entry.clients.delete(client)) return;
    // Their cursors leave with them, here and on other instances.
    if (client.awarenessIds.size > 0) removeAwarenessStates(entry.awareness, [...client.awarenessIds], null);
    if (entry.clients.size === 0 && this.registry.loaded(entry.workshopId) === entry) this.registry.unloadLater(entry, this.registry.options.graceMs);
  }

  /** Relays an awareness change to this instance's clients, and to other instances unless it came from one. */
  relayAwareness(entry: WorkshopDocument, changed: number[], origin: unknown): void {
    if (origin instanceof SyncClient) {
      for (const id of changed) {
        if (entry.awareness.getStates().has(id)) origin.awarenessIds.add(id);
        else origin.awarenessIds.delete(id);
      }
    }
    entry.broadcast(awarenessMessage(entry.awareness, changed));
    if (origin !== REMOTE) this.fanout()?.publish(entry.workshopId, 'awareness', encodeAwarenessUpdate(entry.awareness, changed));
  }
}

/**
 * Refuses updates that write outside the two maps (another root type would grow the document
 * with data nothing reads). Throws on a malformed update, before anything is applied.
 */
function checkUpdate(update: Uint8Array) {
  const { structs } = Y.decodeUpdate(update);
  for (const struct of structs) {
    if (struct instanceof Y.Item && typeof struct.parent === 'string' && struct.parent !== CARDS_MAP && struct.parent !== ZONES_MAP) {
      throw new Error(`update writes to the unknown root "${struct.parent}"`);
    }
  }
}
