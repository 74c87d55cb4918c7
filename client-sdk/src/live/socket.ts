import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { WorkshopClient } from '../client.js';
import { ApiError, statusOfCode } from '../errors.js';
import type { ClientToServerEvents, JoinAck, ServerToClientEvents } from '../generated/events.js';
import type { Snapshot } from './state.js';

export interface LiveOptions {
  /** Socket.IO connection options (`transports`, reconnection delays, ...); the token is the client's. */
  socket?: Partial<ManagerOptions & SocketOptions>;
}

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** How long an unanswered `join` is waited for before it is sent again. */
const JOIN_TIMEOUT_MS = 10_000;
/**
 * How long a gap in the sequence may stay open before the missed changes are asked for. Each
 * instance of the service sends its own writes' events, so events of different instances can
 * cross on their way: the missing one usually arrives a moment later, and no `join` is needed.
 */
const GAP_WAIT_MS = 300;
/**
 * How gaps are filled when they keep coming. A socket may join ten times in ten seconds, and while
 * the instances cannot reach each other (their Redis away) every event from another instance
 * leaves a gap. A session that joined fewer than `GAP_JOINS_AT_ONCE` times in the last
 * `JOIN_WINDOW_MS` fills a gap at once; past that, one join every `GAP_RESUME_INTERVAL_MS` at
 * most: the screen stays within a few seconds of the log and well within its budget of joins,
 * instead of spending it at once and waiting out the refusal with every event held.
 */
const JOIN_WINDOW_MS = 10_000;
const GAP_JOINS_AT_ONCE = 3;
const GAP_RESUME_INTERVAL_MS = 2_000;

/** A socket of the client's server, authenticated with the client's token. */
export function connectSocket(client: WorkshopClient, options: LiveOptions): ClientSocket {
  return io(client.baseUrl, {
    // A socket of its own: sockets to one server otherwise share a connection, and closing one would close the others.
    forceNew: true,
    ...options.socket,
    // Read at every (re)connection, so a token set later is the one used.
    auth: (send) => send({ token: client.token }),
  });
}

/** The `join`s of one workshop on one socket, and the pace they keep within the server's budget. */
export class WorkshopJoins {
  /** When the joins of the last `JOIN_WINDOW_MS` were sent, for the pace of gap resumes. */
  private recentJoins: number[] = [];
  /** The `seq` the last `join` answered with: everything up to it was replayed (or loaded). */
  joinedSeq = 0;

  constructor(
    private readonly socket: ClientSocket,
    private readonly workshopId: string,
    private readonly isClosed: () => boolean,
  ) {}

  async join(sinceSeq?: number): Promise<{ seq: number; reload?: true }> {
    const request =
      sinceSeq === undefined ? { workshop_id: this.workshopId } : { workshop_id: this.workshopId, since_seq: sinceSeq };
    for (;;) {
      const now = Date.now();
      this.recentJoins = [...this.recentJoins.filter((at) => at > now - JOIN_WINDOW_MS), now];
      // The acknowledgement of a `timeout()` emit is typed `any` by Socket.IO: it is the `join` ack.
      const ack = (await this.socket.timeout(JOIN_TIMEOUT_MS).emitWithAck('join', request)) as JoinAck;
      if (ack.ok) {
        this.joinedSeq = ack.seq;
        return ack;
      }
      const { code, message, details, retry_after } = ack.error;
      // Too many joins, or the database away for a moment: the server says when to ask again.
      const waitable = (code === 'rate_limited' || code === 'service_unavailable') && retry_after !== undefined;
      if (!waitable || this.isClosed()) {
        throw new ApiError(statusOfCode(code), code, message, details, retry_after ?? null);
      }
      await new Promise((resolve) => setTimeout(resolve, retry_after * 1000));
    }
  }

  /** How long a gap that opened now waits before it is filled by a `join`. */
  gapWait(): number {
    const now = Date.now();
    const recent = this.recentJoins.filter((at) => at > now - JOIN_WINDOW_MS);
    const last = recent.at(-1);
    return recent.length < GAP_JOINS_AT_ONCE || last === undefined
      ? GAP_WAIT_MS
      : Math.max(GAP_WAIT_MS, last + GAP_RESUME_INTERVAL_MS - now);
  }
}

/** The workshop's whole state over REST, read at once. */
export async function readSnapshot(client: WorkshopClient, workshopId: string): Promise<Snapshot> {
  const id = workshopId;
  const inWorkshop = { params: { path: { workshop_id: id } } };
  const [workshop, steps, cards, timer, participation] = await Promise.all([
    client.get('/v1/workshops/{id}', { params: { path: { id } } }),
    client.get('/v1/workshops/{workshop_id}/steps', inWorkshop),
    client.get('/v1/workshops/{workshop_id}/cards', inWorkshop),
    client.get('/v1/workshops/{workshop_id}/timer', inWorkshop),
    client.get('/v1/workshops/{workshop_id}/participation', inWorkshop),
  ]);
  return { workshop, steps, cards, timer, participation };
}

/** A refused Socket.IO handshake as an ApiError (the server refuses a missing or revoked token). */
export function handshakeError(err: Error): ApiError {
  return err.message === 'unauthenticated'
    ? new ApiError(401, 'unauthenticated', 'The token is missing, unknown or revoked.')
    : new ApiError(0, 'internal_error', err.message);
}
