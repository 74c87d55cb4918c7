import type { WorkshopClient } from '../client.js';
import { ApiError } from '../errors.js';
import {
  applyReceived,
  cardsAsRead,
  EventListeners,
  isForOtherWorkshop,
  isWorkshopRemoval,
  keyOf,
  needsReload,
  seqOf,
  type Received,
} from './events.js';
import { SequenceTracker } from './sequence.js';
import {
  connectSocket,
  handshakeError,
  readSnapshot,
  WorkshopJoins,
  type ClientSocket,
  type LiveOptions,
} from './socket.js';
import { stateFromSnapshot, type EventName, type PayloadOf, type WorkshopState } from './state.js';
import { StateSubscribers, type LiveWorkshop } from './store.js';

/** How many loads are tried before one is kept although changes happened while it was read. */
const LOAD_ATTEMPTS = 4;
/** The wait before bringing the state up to date again after an attempt that got no answer. */
const RETRY_MS = 1_000;

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
  /** Asks for the missed changes once a gap stayed open long enough (`WorkshopJoins.gapWait`). */
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly joins: WorkshopJoins;
  private closed = false;
  private readonly subscribers = new StateSubscribers(() => this.current);
  private readonly eventListeners = new EventListeners();

  constructor(
    private readonly client: WorkshopClient,
    private readonly workshopId: string,
    options: LiveOptions,
  ) {
    this.socket = connectSocket(client, options);
    this.joins = new WorkshopJoins(this.socket, workshopId, () => this.closed);
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
    const ack = await this.joins.join();
    await this.load(ack.seq);
    this.syncing = false;
    this.update({ status: 'live' });
    this.drain();
    // Every later connection is a return after a drop: ask for what was missed.
    this.socket.on('connect', () => void this.sync());
  }

  subscribe(listener: (state: WorkshopState) => void): () => void {
    return this.subscribers.add(listener, () => this.state);
  }

  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void {
    return this.eventListeners.on(event, listener);
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
    if (isForOtherWorkshop(received, this.workshopId)) return;
    // Sent with `seq: 0`, as the workshop and its log are gone: it ends the session whatever the sequence.
    if (isWorkshopRemoval(received)) {
      this.eventListeners.emit(received);
      this.end(new ApiError(404, 'not_found', 'The workshop was deleted.'));
      return;
    }
    if (this.syncing || !this.current) {
      this.held.push(received);
      return;
    }
    const seq = seqOf(received);
    if (seq === undefined) {
      this.apply(received);
      return;
    }
    const verdict = this.sequence.admit(seq, keyOf(received));
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
    const order = (r: Received) => seqOf(r) ?? -1;
    const held = this.held.sort((a, b) => order(a) - order(b));
    let taken = 0;
    while (taken < held.length && !this.syncing && !this.closed) {
      const received = held[taken]!;
      if (order(received) >= 0) {
        const verdict = this.sequence.admit(order(received), keyOf(received));
        if (verdict === 'gap') break;
        taken += 1;
        if (verdict === 'apply') this.apply(received);
      } else {
        taken += 1;
        this.apply(received);
      }
    }
    held.splice(0, taken);
    if (held.length > 0) return void (this.syncing || this.gapOpen());
    this.stopGapTimer();
    // Nothing waits, yet the last join answered a later `seq`: its replay fell short (an instance
    // lost, an event never sent), and no later event would show the gap. Load instead.
    if (!this.syncing && !this.closed && this.sequence.seq < this.joins.joinedSeq) void this.reload();
  }

  /**
   * A gap in the sequence: the missed changes are asked for once it stayed open a moment, at a
   * pace that keeps within the server's join budget. A gap the last join should have filled (its
   * replay fell short of the `seq` it answered) is one the server could not fill: load instead.
   */
  private gapOpen(): void {
    if (this.closed || this.syncing) return;
    if (this.sequence.seq < this.joins.joinedSeq) {
      this.stopGapTimer();
      this.loadRequested = true;
      void this.sync();
      return;
    }
    if (this.gapTimer !== null) return;
    const wait = this.joins.gapWait();
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
    this.current = applyReceived(this.state, received);
    this.subscribers.schedule();
    this.eventListeners.emit(received);
    if (needsReload(received, readBefore, this.state)) void this.reload();
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
        const ack = await this.joins.join(this.sequence.resumeFrom());
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
      const snapshot = await readSnapshot(this.client, this.workshopId);
      const check = await this.joins.join(from);
      if (check.seq === from || attempt >= LOAD_ATTEMPTS) {
        this.current = stateFromSnapshot(snapshot, this.current, from);
        this.sequence.loadedAt(from);
        this.subscribers.schedule();
        return;
      }
      from = check.seq;
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
    this.subscribers.schedule();
  }
}
