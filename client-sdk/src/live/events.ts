import { eventKey } from './sequence.js';
import { applyEvent, privacyOf, type EventName, type PayloadOf, type WorkshopState } from './state.js';

/** An event as the socket gives it: its payload is told apart by the event's name. */
export type Received = { event: EventName; payload: any };

/** The event's `seq`, when it has one. */
export function seqOf({ payload }: Received): number | undefined {
  return typeof payload?.seq === 'number' ? payload.seq : undefined;
}

/** What tells the event apart from the others of its change (`eventKey`). */
export function keyOf({ event, payload }: Received): string {
  return eventKey(event, payload);
}

/** An event about another workshop than this one. */
export function isForOtherWorkshop({ payload }: Received, workshopId: string): boolean {
  return payload?.workshop_id !== undefined && payload.workshop_id !== workshopId;
}

/** The workshop was deleted: sent with `seq: 0`, as the workshop and its log are gone. */
export function isWorkshopRemoval({ event, payload }: Received): boolean {
  return event === 'workshop:event' && payload.action === 'removeWorkshop';
}

export function applyReceived(state: WorkshopState, { event, payload }: Received): WorkshopState {
  return applyEvent(state, event, payload);
}

/**
 * Changes the events do not describe card by card: an import, a merge moving a cluster's ideas,
 * an account deleted (what it wrote, its votes and its seat read with no author from then on), a
 * step that shows votes or ratings again (a participant's cards carried only their own), and a
 * step that reveals the other participants' cards, or hides them again (the reveal: while they
 * were private their changes arrived bare). After them the state is loaded again; `readBefore` is
 * `cardsAsRead` of the state before the event.
 */
export function needsReload({ event, payload }: Received, readBefore: string, after: WorkshopState): boolean {
  return Boolean(
    (event === 'workshop:event' && payload.reload) ||
    (event === 'card:deleted' && payload.merged_into) ||
    cardsAsRead(after) !== readBefore,
  );
}

/**
 * What decides which cards a reader is given and with which feedback: the votes and ratings the
 * current step shows everyone (with no step, both), and whose cards it shows (`privacyOf`). A
 * change of it is a change the cards' events do not carry: the cards are read again.
 */
export function cardsAsRead(state: WorkshopState): string {
  const prefs = state.step?.prefs;
  const feedback = prefs ? `${prefs.allow_display_votes}/${prefs.allow_display_ratings}` : 'true/true';
  return `${feedback}/${privacyOf(state).cardsVisible}`;
}

/** The listeners of each event by name, given its payload typed by the name (`PayloadOf<E>`). */
export class EventListeners {
  private readonly byEvent = new Map<EventName, Set<(payload: any) => void>>();

  on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void): () => void {
    const listeners = this.byEvent.get(event) ?? new Set();
    this.byEvent.set(event, listeners);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  emit({ event, payload }: Received): void {
    for (const listener of this.byEvent.get(event) ?? []) listener(payload);
  }
}
