import type { EventName, PayloadOf, WorkshopState } from './state.js';

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

/** The subscribers of a state, told once per burst of changes. */
export class StateSubscribers {
  private readonly listeners = new Set<(state: WorkshopState) => void>();
  private notifyScheduled = false;

  /** `current` reads the state when the subscribers are told (null while not loaded). */
  constructor(private readonly current: () => WorkshopState | null) {}

  /** Adds `listener` and calls it with the state now, as `state` reads it. */
  add(listener: (state: WorkshopState) => void, state: () => WorkshopState): () => void {
    this.listeners.add(listener);
    listener(state());
    return () => this.listeners.delete(listener);
  }

  /** Subscribers hear once per burst of changes (a replay of hundreds of events is one render). */
  schedule(): void {
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    queueMicrotask(() => {
      this.notifyScheduled = false;
      const state = this.current();
      if (state) for (const listener of this.listeners) listener(state);
    });
  }
}
