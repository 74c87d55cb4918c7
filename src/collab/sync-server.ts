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

/** A socket's stay is checked this often: one that missed the last ping is dropped, its token and membership checked again. */
const PING_EVERY_MS = 30_000;
/** Bigger messages close the socket; updates have their own, smaller bound (`guard.ts`). */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** A closing socket that does not finish its close handshake in time is cut at shutdown. */
const CLOSE_GRACE_MS = 1_000;
/**
 * Messages a connection may have waiting to be handled before its socket stops being read (the
 * client's sends then wait in TCP's buffers and its own), and the number below which reading
 * resumes. Storing an update takes a write: a client sending faster than that must not grow the
 * server's memory without bound.
 */
const BACKLOG_PAUSE_AT = 32;
const BACKLOG_RESUME_AT = 8;
/**
 * Messages kept while the token and membership are checked. The socket is not read meanwhile, so
 * only what came with the upgrade can arrive: more is not a y-websocket client (it sends a step 1
 * and its awareness), and closes the connection.
 */
const MAX_EARLY_MESSAGES = 16;

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
  private queued = 0;

  constructor(
    readonly socket: WebSocket,
    readonly userId: string,
    readonly tokenHash: string,
    /** How its token's session was opened: `sso_required` organizations refuse `password` ones. */
    readonly signInMethod: 'password' | 'oidc',
  ) {}

  /** Runs `task` once everything queued before it on this connection is done. */
  serially(task: () => Promise<void>): void {
    this.queued += 1;
    this.flow();
    this.work = this.work
      .then(task)
      .catch((err) => {
        console.error('[collab] a sync message failed', err);
        this.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
      })
      .finally(() => {
        this.queued -= 1;
        this.flow();
      });
  }

  /** Messages of this connection are being handled now (not only held for its join). */
  get working(): boolean {
    return this.queued > 0;
  }

  /** Messages received and not handled yet: queued here, or waiting for the document to load (`PendingSync`). */
  get backlog(): number {
    return this.queued + (this.pending?.queue.length ?? 0);
  }

  /**
   * Stops reading the socket while the backlog is high, and reads again once it is low. A closing
   * socket is read whatever its backlog (what still comes is dropped): its close handshake needs it.
   */
  flow(): void {
    const backlog = this.backlog;
    if (backlog >= BACKLOG_PAUSE_AT && this.socket.readyState === WebSocket.OPEN) this.socket.pause();
    else if ((backlog <= BACKLOG_RESUME_AT || this.socket.readyState !== WebSocket.OPEN) && this.socket.isPaused)
      this.socket.resume();
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
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING)
      this.socket.close(code, reason);
    this.flow();
  }

  askAgain(doc: Y.Doc): void {
    this.answered = false;
    this.send(syncStep1Message(doc));
  }
}

/**
 * How joining a document ended: joined, or the close the connection gets (4404 for non-members and
 * unknown workshops; a reconnect for a document dropped meanwhile or a server shutting down).
 */
export type ConnectOutcome = 'joined' | 'notFound' | 'ssoRequired' | 'retry' | 'shutdown';

/** What the endpoint asks of the document registry. */
export interface SyncHost {
  /** Joins the client to the workshop's document and starts the sync. */
  connect(workshopId: string, client: SyncClient): Promise<ConnectOutcome>;
  receive(client: SyncClient, data: Uint8Array): void;
  disconnect(client: SyncClient): void;
  /** Checks the clients' tokens and memberships again, closing those that lost either. */
  recheck(clients: readonly SyncClient[]): Promise<void>;
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
  /** Checks under way (`checkAgain`): closing waits for them, as they read the database. */
  private readonly checking = new Set<Promise<void>>();

  constructor(
    private readonly auth: Pick<SessionCheck, 'authenticate' | 'bearerToken'>,
    private readonly host: SyncHost,
  ) {
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
        closeReading(ws, CLOSE.retry);
      });
    });
    return true;
  }

  private async accept(ws: WebSocket, url: URL, request: IncomingMessage) {
    // The socket is not read while the token and membership are checked (`SyncClient.flow`
    // resumes it); what came with the upgrade waits for the answer, within a small bound.
    ws.pause();
    const early: Uint8Array[] = [];
    let client: SyncClient | undefined;
    ws.on('message', (data: RawData) => {
      if (!client) {
        if (early.length >= MAX_EARLY_MESSAGES) return closeReading(ws, CLOSE.tooManyMessages);
        return void early.push(toBytes(data));
      }
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
    if (!session) return closeReading(ws, CLOSE.unauthenticated);

    const candidate = new SyncClient(ws, session.user.id, session.tokenHash, session.method);
    const outcome = /^[\w-]{1,64}$/.test(workshopId) ? await this.host.connect(workshopId, candidate) : 'notFound';
    if (outcome !== 'joined') {
      this.host.disconnect(candidate);
      return closeReading(ws, CLOSE[outcome]);
    }
    if (ws.readyState !== WebSocket.OPEN) return this.host.disconnect(candidate);
    client = candidate;
    this.clients.add(client);
    for (const data of early) this.host.receive(client, data);
    client.flow();
  }

  private ping() {
    const checked: SyncClient[] = [];
    for (const client of this.clients) {
      // A socket paused while its messages are being handled is not read, its pong with it: that
      // silence is the server's. Paused with only messages held for a join that waits on the client
      // (its first answer not taken off the wire), the silence is the client's.
      if (!client.alive && !(client.socket.isPaused && client.working)) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
      checked.push(client);
    }
    this.checkAgain(checked);
  }

  private checkAgain(clients: SyncClient[]) {
    if (clients.length === 0 || this.closing) return;
    const check = this.host
      .recheck(clients)
      .catch((err) => console.error('[collab] could not check sync connections again', err))
      .finally(() => this.checking.delete(check));
    this.checking.add(check);
  }

  /** Connections open now that passed their checks. */
  get connections(): number {
    return this.clients.size;
  }

  /** Checks again the connections `which` selects (after a logout, a lost membership). */
  recheck(which: (client: SyncClient) => boolean): void {
    this.checkAgain([...this.clients].filter(which));
  }

  /** Messages received on the connections and not handled yet. */
  get backlog(): number {
    let total = 0;
    for (const client of this.clients) total += client.backlog;
    return total;
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
          if (socket.readyState === WebSocket.OPEN) closeReading(socket, CLOSE.shutdown);
        }),
    );
    const cut = setTimeout(() => {
      for (const socket of sockets) socket.terminate();
    }, CLOSE_GRACE_MS);
    await Promise.all([...closing, ...this.checking]);
    clearTimeout(cut);
    this.wss.close();
  }
}

/** Closes a socket the server may have stopped reading (`SyncClient.flow`): the close handshake needs the client's answer read. */
function closeReading(ws: WebSocket, close: { code: number; reason: string }): void {
  ws.resume();
  ws.close(close.code, close.reason);
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
