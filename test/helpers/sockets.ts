import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, JoinAck, ServerToClientEvents } from '../../src/realtime/events';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
export type EventName = keyof ServerToClientEvents;

export interface Received {
  event: EventName;
  payload: any;
}

/**
 * A real socket.io-client connection that records every event it receives, in order, so tests can
 * wait for one, or assert on the whole sequence.
 */
export class LiveClient {
  readonly received: Received[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly socket: ClientSocket) {
    socket.onAny((event: EventName, payload: unknown) => {
      this.received.push({ event, payload });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Events of one kind received so far (optionally only those matching). */
  all(event: EventName, match: (payload: any) => boolean = () => true): any[] {
    return this.received.filter((r) => r.event === event && match(r.payload)).map((r) => r.payload);
  }

  /** Resolves with the first event of that kind (received already or later) that matches. */
  async next(event: EventName, match: (payload: any) => boolean = () => true, timeoutMs = 3_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((r) => r.event === event && match(r.payload));
      if (found) return found.payload;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`no ${event} within ${timeoutMs} ms; got ${JSON.stringify(this.received.map((r) => r.event))}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The distinct `seq` values of workshop events, in the order they arrived. */
  seqs(workshopId: string): number[] {
    const seen: number[] = [];
    for (const { payload } of this.received) {
      if (payload?.workshop_id !== workshopId || typeof payload.seq !== 'number') continue;
      if (seen[seen.length - 1] !== payload.seq) seen.push(payload.seq);
    }
    return seen;
  }

  clear() {
    this.received.length = 0;
  }

  join(workshopId: string, sinceSeq?: number): Promise<JoinAck> {
    const request =
      sinceSeq === undefined ? { workshop_id: workshopId } : { workshop_id: workshopId, since_seq: sinceSeq };
    return this.socket.timeout(3_000).emitWithAck('join', request);
  }

  close() {
    this.socket.disconnect();
  }
}

/** Connects with a token; rejects with the server's connect_error message. */
export function connectSocket(
  url: string,
  token: string | undefined,
  options: { reconnection?: boolean; transports?: Array<'polling' | 'websocket'> } = {},
): Promise<LiveClient> {
  const socket: ClientSocket = io(url, {
    auth: token === undefined ? {} : { token },
    transports: options.transports ?? ['websocket'],
    reconnection: options.reconnection ?? false,
    reconnectionDelay: 200,
    reconnectionDelayMax: 400,
    forceNew: true,
  });
  const client = new LiveClient(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(client));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** Connects and joins a workshop; fails the test if the join is refused. */
export async function joinedClient(url: string, token: string, workshopId: string): Promise<LiveClient> {
  const client = await connectSocket(url, token);
  const ack = await client.join(workshopId);
  if (!ack.ok) throw new Error(`join refused: ${JSON.stringify(ack)}`);
  return client;
}
