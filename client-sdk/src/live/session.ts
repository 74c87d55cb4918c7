import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { WorkshopClient } from '../client.js';
import { ApiError, statusOfCode } from '../errors.js';
import type { ClientToServerEvents, JoinAck, ServerToClientEvents } from '../generated/events.js';
import { eventKey, SequenceTracker } from './sequence.js';
import {
  applyEvent,
  privacyOf,
  stateFromSnapshot,
  type EventName,
  type PayloadOf,
  type Snapshot,
  type WorkshopState,
} from './state.js';

export interface LiveOptions {
  /** Socket.IO connection options (`transports`, reconnection delays, ...); the token is the client's. */
  socket?: Partial<ManagerOptions & SocketOptions>;
}

/** A workshop kept current from its live events. */
export interface LiveWorkshop {
  /** The state now. */
  readonly state: WorkshopState;
  /**
   * Calls `listener` with the state now, then after every change (changes arriving together are
   * given once). Returns the function that stops it. The contract of a Svelte store.
   */
  subscribe(listener: (state: WorkshopState) => void): () => void;
  /**
   * Calls `listener` with each event of that name once it is applied to the state; duplicates
   * and events already contained in a reload are not given. Returns the function that stops it.
   */
  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void;
  /** Loads the whole state over REST again. */
  reload(): Promise<void>;
  /** Leaves the workshop and closes the connection. */
  close(): void;
}

type Received = { event: EventName; payload: any };
type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** How long an unanswered `join` is waited for before it is sent again. */
const JOIN_TIMEOUT_MS = 10_000;
/** How many loads are tried before one is kept although changes happened while it was read. */
const LOAD_ATTEMPTS = 4;
/** The wait before bringing the state up to date again after an attempt that got no answer. */
const RETRY_MS = 1_000;
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

/**
 * Loads the workshop over REST, joins its live events, and keeps one consistent state:
 * `const live = await openWorkshop(api, id); live.subscribe((state) => render(state));`
 * Rejects with `ApiError` when the workshop cannot be read or joined (404 for non-members, 401).
 */
export async function openWorkshop(
  client: WorkshopClient,
  workshopId: string,
  options: LiveOptions = {},
): Promise<LiveWorkshop> {
  const session = new LiveSession(client, workshopId, options);
  try {
    await session.start();
  } catch (err) {
    session.close();
    throw err;
  }
  return session;
}

class LiveSession implements LiveWorkshop {
  private readonly socket: ClientSocket;
  private current: WorkshopState | null = null;
  private readonly sequence = new SequenceTracker();
  /** Events that arrived while `syncing`, applied after it in `seq` order. */
  private held: Received[] = [];
  /** True while the state is loaded or a gap filled. */
  private syncing = false;
  private syncRun: Promise<void> | null = null;
  /** The next sync loads over REST instead of only asking for the missed events. */
  private loadRequested = false;
  /** Asks for the missed changes once a gap stayed open long enough (`GAP_WAIT_MS`, `GAP_RESUME_INTERVAL_MS`). */
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** When the joins of the last `JOIN_WINDOW_MS` were sent, for the pace of gap resumes. */
  private recentJoins: number[] = [];
  /** The `seq` the last `join` answered with: everything up to it was replayed (or loaded). */
  private joinedSeq = 0;
  private closed = false;
  private notifyScheduled = false;
  private readonly listeners = new Set<(state: WorkshopState) => void>();
  private readonly eventListeners = new Map<EventName, Set<(payload: any) => void>>();

  constructor(
    private readonly client: WorkshopClient,
    private readonly workshopId: string,
    options: LiveOptions,
  ) {
    this.socket = io(client.baseUrl, {
      // A socket of its own: sockets to one server otherwise share a connection, and closing one would close the others.
      forceNew: true,
      ...options.socket,
      // Read at every (re)connection, so a token set later is the one used.
      auth: (send) => send({ token: client.token }),
    });
    this.socket.onAny((event: EventName, payload: unknown) => this.receive({ event, payload }));
    this.socket.on('disconnect', (reason) => {
      if (this.closed) return;
      this.update({ status: 'reconnecting' });
      // The server ended this connection (a logout, a restart): Socket.IO leaves reconnecting to us.
      if (reason === 'io server disconnect') this.socket.connect();
    });
    this.socket.on('connect_error', (err) => {
      // A refused handshake (the token no longer valid) is final; network errors are retried by Socket.IO.
      if (this.current && !this.socket.active) this.end(handshakeError(err));
    });
  }

  get state(): WorkshopState {
    if (!this.current) throw new Error('the workshop is not loaded yet');
    return this.current;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('connect_error', (err) => reject(handshakeError(err)));
    });
    this.syncing = true;
    const ack = await this.join();
    await this.load(ack.seq);
    this.syncing = false;
    this.update({ status: 'live' });
    this.drain();
    // Every later connection is a return after a drop: ask for what was missed.
    this.socket.on('connect', () => void this.sync());
  }

  subscribe(listener: (state: WorkshopState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void {
    const listeners = this.eventListeners.get(event) ?? new Set();
    this.eventListeners.set(event, listeners);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  reload(): Promise<void> {
    this.loadRequested = true;
    return this.sync();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopGapTimer();
    this.socket.disconnect();
    if (this.current) this.update({ status: 'closed' });
  }

  private receive(received: Received): void {
    if (this.closed) return;
    const { event, payload } = received;
    if (payload?.workshop_id !== undefined && payload.workshop_id !== this.workshopId) return;
    // Sent with `seq: 0`, as the workshop and its log are gone: it ends the session whatever the sequence.
    if (event === 'workshop:event' && payload.action === 'removeWorkshop') {
      this.emit(received);
      this.end(new ApiError(404, 'not_found', 'The workshop was deleted.'));
      return;
    }
    if (this.syncing || !this.current) {
      this.held.push(received);
      return;
    }
    if (typeof payload?.seq !== 'number') {
      this.apply(received);
      return;
    }
    const verdict = this.sequence.admit(payload.seq, eventKey(event, payload));
    if (verdict === 'apply') {
      this.apply(received);
      // It may have been the missing one: what waited behind it follows.
      if (this.held.length > 0) this.drain();
    } else if (verdict === 'gap') {
      this.held.push(received);
      this.gapOpen();
    }
  }

  /**
   * Applies the held events that now follow on, in `seq` order (duplicates dropped), up to the
   * first gap; the rest stay held. Stops when an event starts a sync (a reload).
   */
  private drain(): void {
    if (this.syncing) return;
    const seqOf = (r: Received) => (typeof r.payload?.seq === 'number' ? r.payload.seq : -1);
    const held = this.held.sort((a, b) => seqOf(a) - seqOf(b));
    let taken = 0;
    while (taken < held.length && !this.syncing && !this.closed) {
      const received = held[taken]!;
      if (seqOf(received) >= 0) {
        const verdict = this.sequence.admit(seqOf(received), eventKey(received.event, received.payload));
        if (verdict === 'gap') break;
        taken += 1;
        if (verdict === 'apply') this.apply(received);
      } else {
        taken += 1;
        this.apply(received);
      }
    }
    held.splice(0, taken);
    if (held.length === 0) this.stopGapTimer();
    else if (!this.syncing) this.gapOpen();
  }

  /**
   * A gap in the sequence: the missed changes are asked for once it stayed open a moment, at a
   * pace that keeps within the server's join budget. A gap the last join should have filled (its
   * replay fell short of the `seq` it answered) is one the server could not fill: load instead.
   */
  private gapOpen(): void {
    if (this.closed || this.syncing) return;
    if (this.sequence.seq < this.joinedSeq) {
      this.stopGapTimer();
      this.loadRequested = true;
      void this.sync();
      return;
    }
    if (this.gapTimer !== null) return;
    const now = Date.now();
    const recent = this.recentJoins.filter((at) => at > now - JOIN_WINDOW_MS);
    const last = recent.at(-1);
    const wait =
      recent.length < GAP_JOINS_AT_ONCE || last === undefined
        ? GAP_WAIT_MS
        : Math.max(GAP_WAIT_MS, last + GAP_RESUME_INTERVAL_MS - now);
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      // Disconnected, the next connection resumes anyway.
      if (this.held.length > 0 && this.socket.connected) void this.sync();
    }, wait);
  }

  private stopGapTimer(): void {
    if (this.gapTimer === null) return;
    clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }

  private apply(received: Received): void {
    const readBefore = cardsAsRead(this.state);
    this.current = applyEvent(this.state, received.event, received.payload);
    this.scheduleNotify();
    this.emit(received);
    // Changes the events do not describe card by card: an import, a merge moving a cluster's ideas,
    // a step that shows votes or ratings again (a participant's cards carried only their own), and
    // a step that reveals the other participants' cards, or hides them again (the reveal: while
    // they were private their changes arrived bare).
    const { event, payload } = received;
    if (
      (event === 'workshop:event' && payload.reload) ||
      (event === 'card:deleted' && payload.merged_into) ||
      cardsAsRead(this.state) !== readBefore
    ) {
      void this.reload();
    }
  }

  /**
   * Brings the state up to date after a drop, a gap or a reload request: joins again with
   * `since_seq`, so the server replays what was missed (held until its answer), and loads over
   * REST when the server says to or a reload was asked for. Never rejects: a refusal ends the
   * session (`state.error`), anything else is tried again once connected.
   */
  private sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.syncRun ??= this.runSync().finally(() => {
      this.syncRun = null;
      if (this.loadRequested && !this.closed) void this.sync();
    });
    return this.syncRun;
  }

  private async runSync(): Promise<void> {
    this.syncing = true;
    this.stopGapTimer();
    try {
      let seq = this.sequence.seq;
      if (!this.loadRequested) {
        const ack = await this.join(this.sequence.resumeFrom());
        this.loadRequested = ack.reload === true;
        seq = ack.seq;
      }
      while (this.loadRequested) {
        this.loadRequested = false;
        await this.load(seq);
        seq = this.sequence.seq;
      }
      this.syncing = false;
      this.update({ status: 'live' });
      this.drain();
    } catch (err) {
      this.syncing = false;
      if (err instanceof ApiError && [401, 403, 404].includes(err.status)) return this.end(err);
      // Unanswered, or the server could not answer: try again while connected; a new connection syncs anyway.
      if (this.socket.connected) setTimeout(() => void this.sync(), RETRY_MS);
    }
  }

  /**
   * Loads the state over REST at a known `seq`. A load that changes happened during cannot tell
   * which of them it holds, so it is repeated until a `join` right after it finds the workshop
   * still at the `seq` it started from: then it holds exactly that, and every later event applies.
   */
  private async load(seq: number): Promise<void> {
    let from = seq;
    for (let attempt = 1; ; attempt++) {
      const snapshot = await this.readSnapshot();
      const check = await this.join(from);
      if (check.seq === from || attempt >= LOAD_ATTEMPTS) {
        this.current = stateFromSnapshot(snapshot, this.current, from);
        this.sequence.loadedAt(from);
        this.scheduleNotify();
        return;
      }
      from = check.seq;
    }
  }

  private async readSnapshot(): Promise<Snapshot> {
    const id = this.workshopId;
    const inWorkshop = { params: { path: { workshop_id: id } } };
    const [workshop, steps, cards, timer, participation] = await Promise.all([
      this.client.get('/v1/workshops/{id}', { params: { path: { id } } }),
      this.client.get('/v1/workshops/{workshop_id}/steps', inWorkshop),
      this.client.get('/v1/workshops/{workshop_id}/cards', inWorkshop),
      this.client.get('/v1/workshops/{workshop_id}/timer', inWorkshop),
      this.client.get('/v1/workshops/{workshop_id}/participation', inWorkshop),
    ]);
    return { workshop, steps, cards, timer, participation };
  }

  private async join(sinceSeq?: number): Promise<{ seq: number; reload?: true }> {
    const request =
      sinceSeq === undefined ? { workshop_id: this.workshopId } : { workshop_id: this.workshopId, since_seq: sinceSeq };
    for (;;) {
      const now = Date.now();
      this.recentJoins = [...this.recentJoins.filter((at) => at > now - JOIN_WINDOW_MS), now];
      const ack: JoinAck = await this.socket.timeout(JOIN_TIMEOUT_MS).emitWithAck('join', request);
      if (ack.ok) {
        this.joinedSeq = ack.seq;
        return ack;
      }
      const { code, message, details, retry_after } = ack.error;
      // Too many joins, or the database away for a moment: the server says when to ask again.
      const waitable = (code === 'rate_limited' || code === 'service_unavailable') && retry_after !== undefined;
      if (!waitable || this.closed) throw new ApiError(statusOfCode(code), code, message, details, retry_after ?? null);
      await new Promise((resolve) => setTimeout(resolve, retry_after * 1000));
    }
  }

  /** The server ended the session: the state says why, and nothing more arrives. */
  private end(error: ApiError): void {
    if (this.closed) return;
    this.closed = true;
    this.stopGapTimer();
    this.socket.disconnect();
    if (this.current) this.update({ status: 'closed', error });
  }

  private update(change: Partial<WorkshopState>): void {
    if (!this.current) return;
    this.current = { ...this.current, ...change };
    this.scheduleNotify();
  }

  private emit({ event, payload }: Received): void {
    for (const listener of this.eventListeners.get(event) ?? []) listener(payload);
  }

  /** Subscribers hear once per burst of changes (a replay of hundreds of events is one render). */
  private scheduleNotify(): void {
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    queueMicrotask(() => {
      this.notifyScheduled = false;
      if (this.current) for (const listener of this.listeners) listener(this.current);
    });
  }
}

/** A refused Socket.IO handshake as an ApiError (the server refuses a missing or revoked token). */
function handshakeError(err: Error): ApiError {
  return err.message === 'unauthenticated'
    ? new ApiError(401, 'unauthenticated', 'The token is missing, unknown or revoked.')
    : new ApiError(0, 'internal_error', err.message);
}

/**
 * What decides which cards a reader is given and with which feedback: the votes and ratings the
 * current step shows everyone (with no step, both), and whose cards it shows (`privacyOf`). A
 * change of it is a change the cards' events do not carry: the cards are read again.
 */
function cardsAsRead(state: WorkshopState): string {
  const prefs = state.step?.prefs;
  const feedback = prefs ? `${prefs.allow_display_votes}/${prefs.allow_display_ratings}` : 'true/true';
  return `${feedback}/${privacyOf(state).cardsVisible}`;
}
