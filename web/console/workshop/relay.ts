/*
 * A workshop's live session that outlives the connection it started with. When the console's
 * session ends, the SDK's live session ends too (its handshake refused); once the person signs in
 * again (session-end.ts), a new one is opened with the new token and put in its place, and every
 * tab's listeners follow it: the tabs, and what was typed in them, are never redrawn from scratch.
 */
import type { WorkshopClient } from 'workshop-sdk';
import { openWorkshop, type EventName, type LiveWorkshop, type PayloadOf, type WorkshopState } from 'workshop-sdk/live';

type AnyListener = (payload: never) => void;

export interface Relay extends LiveWorkshop {
  /** Opens the workshop again (after a new sign-in) and moves every listener to the new session. */
  reopen(): Promise<void>;
}

export async function relayWorkshop(client: WorkshopClient, id: string): Promise<Relay> {
  let live = await openWorkshop(client, id);
  let closed = false;
  const subscribers = new Set<(state: WorkshopState) => void>();
  /** Each event listener, with the function that stops it on the session now in use. */
  const listeners = new Map<AnyListener, { event: EventName; stop: () => void }>();
  let unsubscribe = () => {};
  const attach = () => {
    unsubscribe = live.subscribe((state) => subscribers.forEach((each) => each(state)));
    for (const [listener, entry] of listeners) entry.stop = live.on(entry.event, listener as never);
  };
  attach();
  return {
    get state() {
      return live.state;
    },
    subscribe(listener) {
      subscribers.add(listener);
      listener(live.state);
      return () => subscribers.delete(listener);
    },
    on<E extends EventName>(event: E, listener: (payload: PayloadOf<E>) => void) {
      listeners.set(listener as AnyListener, { event, stop: live.on(event, listener) });
      return () => {
        listeners.get(listener as AnyListener)?.stop();
        listeners.delete(listener as AnyListener);
      };
    },
    reload: () => live.reload(),
    close() {
      closed = true;
      live.close();
    },
    async reopen() {
      const next = await openWorkshop(client, id);
      if (closed) return next.close();
      unsubscribe();
      for (const entry of listeners.values()) entry.stop();
      live.close();
      live = next;
      attach();
    },
  };
}
