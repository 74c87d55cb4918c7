import type { ApiError } from '../errors.js';
import type { PresenceUser, ServerToClientEvents } from '../generated/events.js';
import type { Card, Participation, Step, Timer, View, Workshop } from '../resources.js';
import { moved, ordered, placed, without } from './cards.js';

/**
 * `connecting` until the first load is done; `live` while joined; `reconnecting` after the
 * connection dropped (changes made meanwhile are replayed on return); `closed` after `close()`, or
 * when the server ended the session (`error` says why).
 */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

/** One workshop as a screen shows it, kept current from its live events. Never mutated: each change makes a new object. */
export interface WorkshopState {
  status: LiveStatus;
  /** Why the session was closed by the server (token revoked, workshop deleted); null otherwise. */
  error: ApiError | null;
  /**
   * `criteria` are as last loaded over REST (their ratings depend on the reader). `cards_visible`
   * and `authors` are the current step's (see `privacyOf`), kept in step with `step`.
   */
  workshop: Workshop;
  /** The current step, or null when none is. */
  step: Step | null;
  /**
   * The workshop's steps by position, as loaded and as their events add, change and remove them
   * (see `inLobby`).
   */
  steps: Step[];
  /** What screens should show; with `forceSync`, participants' screens follow it. */
  view: View;
  forceSync: boolean;
  /** Clusters by position, each followed by its ideas by position; `summary.score` as this user may see it. */
  cards: Card[];
  /** Who is connected (each user once; at most 100 listed, `count` counts everyone). */
  presence: { users: PresenceUser[]; count: number };
  timer: Timer;
  /** Your clock subtracted from the server's, in ms, as of the last timer reading (see `timerRemainingMs`). */
  clockOffsetMs: number;
  participation: Participation;
  /** The highest change number applied. */
  seq: number;
}

/** What a load over REST gives. */
export interface Snapshot {
  workshop: Workshop;
  steps: Step[];
  cards: Card[];
  timer: Timer;
  participation: Participation;
}

export type EventName = keyof ServerToClientEvents;
export type PayloadOf<E extends EventName> = Parameters<ServerToClientEvents[E]>[0];

export function stateFromSnapshot(
  snapshot: Snapshot,
  previous: WorkshopState | null,
  seq: number,
  now = Date.now(),
): WorkshopState {
  const { workshop } = snapshot;
  return {
    status: previous?.status ?? 'connecting',
    error: null,
    workshop,
    step: snapshot.steps.find((step) => step.id === workshop.current_step_id) ?? null,
    steps: byPosition(snapshot.steps),
    view: workshop.view,
    forceSync: workshop.force_sync,
    cards: ordered(snapshot.cards),
    presence: previous?.presence ?? { users: [], count: 0 },
    timer: snapshot.timer,
    clockOffsetMs: clockOffset(snapshot.timer, now),
    participation: snapshot.participation,
    seq,
  };
}

/** The state after one event. Applying the same event twice gives the same state. */
export function applyEvent<E extends EventName>(
  state: WorkshopState,
  event: E,
  payload: PayloadOf<E>,
  now = Date.now(),
): WorkshopState {
  const next = reduce(state, event, payload as never, now);
  const seq = (payload as { seq?: unknown }).seq;
  return typeof seq === 'number' && seq > next.seq ? { ...next, seq } : next;
}

type Reducers = { [E in EventName]: (state: WorkshopState, payload: PayloadOf<E>, now: number) => WorkshopState };

const REDUCERS: Reducers = {
  'workshop:updated': (state, { workshop }) => ({
    ...state,
    workshop: { ...state.workshop, ...workshop },
    view: workshop.view,
    forceSync: workshop.force_sync,
  }),
  'step:changed': (state, { step }) => ({
    ...state,
    step,
    steps: step ? withStep(state.steps, step) : state.steps,
    workshop: { ...state.workshop, ...stepPrivacy(step), current_step_id: step?.id ?? null },
  }),
  'view:changed': (state, { view, force_sync }) => ({
    ...state,
    view,
    forceSync: force_sync,
    workshop: { ...state.workshop, view, force_sync },
  }),
  'card:created': (state, { card }) => ({ ...state, cards: placed(state.cards, card) }),
  'card:updated': (state, { card }) => ({ ...state, cards: placed(state.cards, card) }),
  'card:deleted': (state, { removed_ids, card_id }) => ({
    ...state,
    cards: without(state.cards, new Set([card_id, ...removed_ids])),
  }),
  'score:changed': (state, { card_id, score }) => ({
    ...state,
    cards: state.cards.map((card) =>
      card_id === null || card.id === card_id ? { ...card, summary: { ...card.summary, score } } : card,
    ),
  }),
  'timer:changed': (state, { timer }, now) => ({ ...state, timer, clockOffsetMs: clockOffset(timer, now) }),
  'participation:changed': (state, { workshop_id: _workshop, ...participation }) => ({ ...state, participation }),
  presence: (state, { users, count }) => ({ ...state, presence: { users, count } }),
  'workshop:event': (state, { action, change }) => {
    if (action === 'moveCards' && change)
      return { ...state, cards: moved(state.cards, change.placements as Record<string, { position: number }>) };
    // Whether there is a canvas, and which steps have an illustration: what pages read before asking for them.
    if (action === 'addCanvas' || action === 'removeCanvas')
      return { ...state, workshop: { ...state.workshop, has_canvas: action === 'addCanvas' } };
    if (action === 'addIllustration' || action === 'removeIllustration') {
      const stepId = (change?.illustration as { step_id?: unknown } | undefined)?.step_id;
      return illustrated(state, stepId, action === 'addIllustration');
    }
    const step = change?.step as Step | undefined;
    if (!step) return state;
    if (action === 'removeStep') return { ...state, steps: state.steps.filter((kept) => kept.id !== step.id) };
    if (action !== 'addStep' && action !== 'updateStep') return state;
    const steps = withStep(state.steps, step);
    if (step.id === state.step?.id)
      return { ...state, steps, step, workshop: { ...state.workshop, ...stepPrivacy(step) } };
    return { ...state, steps };
  },
  // Carried in the event for listeners; the state keeps no comments, exports or notifications.
  'comment:created': (state) => state,
  'export:updated': (state) => state,
  'export:deleted': (state) => state,
  notification: (state) => state,
};

function reduce<E extends EventName>(
  state: WorkshopState,
  event: E,
  payload: PayloadOf<E>,
  now: number,
): WorkshopState {
  const reducer = REDUCERS[event] as
    ((state: WorkshopState, payload: PayloadOf<E>, now: number) => WorkshopState) | undefined;
  return reducer ? reducer(state, payload, now) : state;
}

/**
 * What the current step lets people see of each other (docs/realtime.md#what-each-reader-receives):
 * with `cardsVisible: 'own'` a participant sees only their own cards and the facilitators'; with
 * `authors` other than `shown`, what is written now carries no name for the others. No step
 * current: the defaults.
 */
export interface Privacy {
  cardsVisible: Workshop['cards_visible'];
  authors: Workshop['authors'];
}

export function privacyOf(state: Pick<WorkshopState, 'workshop'>): Privacy {
  return { cardsVisible: state.workshop.cards_visible ?? 'all', authors: state.workshop.authors ?? 'shown' };
}

/**
 * Whether the workshop is in its lobby (docs/api.md#the-lobby): it has steps and none is current
 * yet, so participants read but write nothing until a facilitator starts one. A workshop without
 * steps is not: its participants write as a step made without prefs lets them.
 */
export function inLobby(state: Pick<WorkshopState, 'step' | 'steps'>): boolean {
  return state.step === null && state.steps.length > 0;
}

/** Steps in agenda order. */
function byPosition(steps: readonly Step[]): Step[] {
  return [...steps].sort((a, b) => a.position - b.position);
}

/** `steps` with `step` put in, or in place of its older copy. */
function withStep(steps: readonly Step[], step: Step): Step[] {
  return byPosition([...steps.filter((kept) => kept.id !== step.id), step]);
}

/** The state with the step `stepId`'s `has_illustration` set, in the agenda and as the current step. */
function illustrated(state: WorkshopState, stepId: unknown, has: boolean): WorkshopState {
  const mark = (step: Step) => (step.id === stepId ? { ...step, has_illustration: has } : step);
  return { ...state, steps: state.steps.map(mark), step: state.step && mark(state.step) };
}

/** The workshop's `cards_visible` and `authors` while `step` is the current one. */
function stepPrivacy(step: Step | null): Pick<Workshop, 'cards_visible' | 'authors'> {
  return { cards_visible: step?.prefs.cards_visible ?? 'all', authors: step?.prefs.authors ?? 'shown' };
}

/** Milliseconds left on the timer by the server's clock, counted from `now` on this device's. */
export function timerRemainingMs(state: Pick<WorkshopState, 'timer' | 'clockOffsetMs'>, now = Date.now()): number {
  const { timer } = state;
  if (timer.state !== 'running' || timer.ends_at === null) return timer.remaining_s * 1000;
  return Math.max(0, Date.parse(timer.ends_at) - (now + state.clockOffsetMs));
}

function clockOffset(timer: Timer, now: number): number {
  const serverTime = Date.parse(timer.server_time);
  return Number.isNaN(serverTime) ? 0 : serverTime - now;
}
