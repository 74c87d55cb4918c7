import type { ApiError } from '../errors.js';
import type { PresenceUser, ServerToClientEvents } from '../generated/events.js';
import type { Card, Participation, Step, Timer, View, Workshop } from '../resources.js';

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

/** Cards in the REST list's order: clusters by position, each followed by its ideas by position. */
export function ordered(cards: Card[]): Card[] {
  const byPosition = (a: Card, b: Card) => a.position - b.position;
  const ideas = new Map<string, Card[]>();
  for (const card of cards) {
    if (card.parent === null) continue;
    const stack = ideas.get(card.parent);
    if (stack) stack.push(card);
    else ideas.set(card.parent, [card]);
  }
  const result: Card[] = [];
  for (const cluster of cards.filter((card) => card.parent === null).sort(byPosition)) {
    result.push(cluster, ...(ideas.get(cluster.id) ?? []).sort(byPosition));
  }
  return result;
}

/**
 * Puts a card at its position among its siblings, moving the siblings as the server does: those
 * after the place it left one down, those from the place it joined one up (events name only the
 * card that moved, not its siblings). Positions stay the server's, so a reader who sees part of a
 * stack (a private step) keeps the gaps of the cards they do not see.
 */
function placed(cards: Card[], card: Card): Card[] {
  const index = cards.findIndex((c) => c.id === card.id);
  const previous = index >= 0 ? cards[index] : undefined;
  // The common changes touch one stack of an ordered list: an edit in place, or an idea joining a
  // cluster's stack. Done in one pass, they keep a live list of a thousand ideas cheap on a phone.
  if (previous && previous.parent === card.parent && previous.position === card.position) {
    const edited = cards.slice();
    edited[index] = card;
    return edited;
  }
  const at = Math.max(card.position, 0);
  if (!previous && card.parent !== null) {
    const withIdea = withNewIdea(cards, { ...card, position: at });
    if (withIdea) return withIdea;
  }
  const moved = cards.flatMap((c) => {
    if (c.id === card.id) return [];
    let position = c.position;
    if (previous && c.parent === previous.parent && position > previous.position) position -= 1;
    if (c.parent === card.parent && position >= at) position += 1;
    return [position === c.position ? c : { ...c, position }];
  });
  return ordered([...moved, { ...card, position: at }]);
}

/**
 * `cards` (ordered) with a new idea put into its cluster's stack before the first sibling at or
 * after its position, those siblings one up; null when its cluster is not in the list (`ordered`
 * leaves such an idea out).
 */
function withNewIdea(cards: Card[], idea: Card): Card[] | null {
  const cluster = cards.findIndex((c) => c.id === idea.parent);
  if (cluster < 0) return null;
  const result = cards.slice(0, cluster + 1);
  let next = cluster + 1;
  let inserted = false;
  for (; next < cards.length && cards[next]!.parent === idea.parent; next++) {
    const sibling = cards[next]!;
    if (sibling.position < idea.position) {
      result.push(sibling);
      continue;
    }
    if (!inserted) result.push(idea);
    inserted = true;
    result.push({ ...sibling, position: sibling.position + 1 });
  }
  if (!inserted) result.push(idea);
  for (; next < cards.length; next++) result.push(cards[next]!);
  return result;
}

/** The cards without those removed, each sibling after a removed one one down per removed card before it. */
function without(cards: Card[], ids: Set<string>): Card[] {
  const removed = cards.filter((card) => ids.has(card.id));
  const left = cards.flatMap((card) => {
    if (ids.has(card.id)) return [];
    const before = removed.filter((gone) => gone.parent === card.parent && gone.position < card.position).length;
    return [before === 0 ? card : { ...card, position: card.position - before }];
  });
  return ordered(left);
}

/** Positions from a canvas move: the server's values for every card the move renumbered. */
function moved(cards: Card[], placements: Record<string, { position: number }>): Card[] {
  return ordered(
    cards.map((card) => (placements[card.id] ? { ...card, position: placements[card.id]!.position } : card)),
  );
}
