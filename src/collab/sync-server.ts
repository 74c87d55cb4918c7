import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type * as Y from 'yjs';
import { refuseUpgrade } from '../http/upgrade';
import type { DocumentClient, WorkshopDocument } from './document';
import type { PendingSync } from './first-sync';
import { CLOSE, syncStep1Message } from './protocol';
import type { SessionCheck } from './types';

/** Where the y-websocket endpoint lives: `/v1/sync/<workshop id>?token=…`. */
export const SYNC_PATH = '/v1/sync/';

/**
 * A socket's stay is checked this often: a socket that did not answer the last ping is dropped,
 * and its token and membership are checked again (revoked through another instance, say).
 */
const PING_EVERY_MS = 30_000;
/** Bigger messages close the socket; updates have their own, smaller bound (`guard.ts`). */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** A closing socket that does not finish its close handshake in time is cut at shutdown. */
const CLOSE_GRACE_MS = 1_000;

/** One y-websocket connection of a member to a workshop's document. */
export class SyncClient implements DocumentClient {
  /** Awareness client ids this connection announced (removed when it leaves). */
  readonly awarenessIds = new Set<number>();
  document: WorkshopDocument | undefined;
  /** Set while its first sync was answered from the stored state and the document is not joined yet. */
  pending: PendingSync | undefined;
  alive = true;
  /** The client answered the server's last step 1 (`SyncSessions.handle`). */
  answered = false;
  /** The connection's messages are handled one after another, in the order they came. */
  private work: Promise<void> = Promise.resolve();

  constructor(readonly socket: WebSocket, readonly userId: string, readonly tokenHash: string) {}

  /** Runs `task` once everything queued before it on this connection is done. */
  serially(task: () => Promise<void>): void {
    this.work = this.work.then(task).catch((err) => {
      console.error('[collab] a sync message failed', err);
      this.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
    });
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends a message; `onSent` runs once it is handed to the operating system (or failed). */
  send(message: Uint8Array, onSent?: () => void): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(message, (err) => {
      if (err) this.socket.terminate();
      onSent?.();
    });
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close(code, reason);
  }

  askAgain(doc: Y.Doc): void {
    this.answered = false;
    this.send(syncStep1Message(doc));
  }
}

/** What the endpoint asks of the document registry. */
export interface SyncHost {
  /** Joins the client to the workshop's document and starts the sync; false for non-members. */
  connect(workshopId: string, client: SyncClient): Promise<boolean>;
  receive(client: SyncClient, data: Uint8Array): void;
  disconnect(client: SyncClient): void;
  /** Checks the client's token and membership again, closing it when either is gone. */
  recheck(client: SyncClient): void;
}

/**
 * The y-websocket endpoint: the token (query `token`, or an `Authorization: Bearer` header) and
 * the membership are checked before any sync message is sent. Refusals complete the WebSocket
 * handshake and close at once with 4401 (bad or missing token) or 4404 (not a member, no such
 * workshop): y-websocket clients treat 44xx as final and stop reconnecting.
 */
export class SyncEndpoint {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly clients = new Set<SyncClient>();
  private readonly pinger: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly auth: Pick<SessionCheck, 'authenticate' | 'bearerToken'>, private readonly host: SyncHost) {
    this.pinger = setInterval(() => this.ping(), PING_EVERY_MS);
    this.pinger.unref();
  }

  /** Takes the upgrade when its path is the sync endpoint's; false leaves it to others. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://localhost');
    } catch {
      return false;
    }
    if (!url.pathname.startsWith(SYNC_PATH)) return false;
    if (this.closing) {
      refuseUpgrade(socket, 'service_unavailable', 'The server is shutting down.');
      return true;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.accept(ws, url, request).catch((err) => {
        console.error('[collab] could not accept a sync connection', err);
        ws.close(CLOSE.retry.code, CLOSE.retry.reason);
      });
    });
    return true;
  }

  private async accept(ws: WebSocket, url: URL, request: IncomingMessage) {
    // Messages that arrive while the token and membership are checked wait for the answer.
    const early: Uint8Array[] = [];
    let client: SyncClient | undefined;
    ws.on('message', (data: RawData) => {
      if (!client) return void early.push(toBytes(data));
      // A client sending more than the server has read yet answers pings only after all of it:
      // what arrives proves it is there as well as a pong would.
      client.alive = true;
      this.host.receive(client, toBytes(data));
    });
    ws.on('pong', () => {
      if (client) client.alive = true;
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      if (!client) return;
      this.clients.delete(client);
      this.host.disconnect(client);
    });

    const workshopId = url.pathname.slice(SYNC_PATH.length);
    const token = url.searchParams.get('token') ?? this.auth.bearerToken(request.headers.authorization);
    const session = token ? await this.auth.authenticate(token) : null;
    if (!session) return ws.close(CLOSE.unauthenticated.code, CLOSE.unauthenticated.reason);

    const candidate = new SyncClient(ws, session.user.id, session.tokenHash);
    if (!/^[\w-]{1,64}$/.test(workshopId) || !(await this.host.connect(workshopId, candidate))) {
      this.host.disconnect(candidate);
      return ws.close(CLOSE.notFound.code, CLOSE.notFound.reason);
    }
    if (ws.readyState !== WebSocket.OPEN) return this.host.disconnect(candidate);
    client = candidate;
    this.clients.add(client);
    for (const data of early) this.host.receive(client, data);
  }

  private ping() {
    for (const client of this.clients) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
      this.host.recheck(client);
    }
  }

  /** Connections open now that passed their checks. */
  get connections(): number {
    return this.clients.size;
  }

  /** Checks again the connections `which` selects (after a logout, a lost membership). */
  recheck(which: (client: SyncClient) => boolean): void {
    for (const client of this.clients) if (which(client)) this.host.recheck(client);
  }

  /** Closes every connection (clients reconnect to another instance or after a restart). */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.pinger);
    // `wss.clients` holds every socket still open, refused ones that are closing included.
    const sockets = [...this.wss.clients];
    const closing = sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          socket.once('close', () => resolve());
          if (socket.readyState === WebSocket.OPEN) socket.close(CLOSE.shutdown.code, CLOSE.shutdown.reason);
        }),
    );
    const cut = setTimeout(() => {
      for (const socket of sockets) socket.terminate();
    }, CLOSE_GRACE_MS);
    await Promise.all(closing);
    clearTimeout(cut);
    this.wss.close();
  }
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
