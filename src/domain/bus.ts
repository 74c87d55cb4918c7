import { EventEmitter } from 'node:events';
import type { WorkshopEvent } from './events';

export type { WorkshopEvent } from './events';

export interface NotificationEvent {
  userId: string;
  notification: {
    id: string;
    type: string;
    data: Record<string, unknown>;
    read: boolean;
    created_at: string;
    updated_at: string;
  };
}

/** A bearer token was revoked (logout): live connections opened with it must end. */
export interface SessionRevokedEvent {
  userId: string;
  tokenHash: string;
}

/**
 * A user's access to workshops may have changed outside a workshop's own log (removed from an
 * organization, demoted or promoted): live connections must check their rights again.
 */
export interface AccessChangedEvent {
  userId: string;
}

/**
 * What others see of a user changed (name, avatar, a guest becoming an account): live lists of
 * who is here show it again.
 */
export interface ProfileChangedEvent {
  userId: string;
}

interface BusEvents {
  workshop: [WorkshopEvent];
  notification: [NotificationEvent];
  'session-revoked': [SessionRevokedEvent];
  'access-changed': [AccessChangedEvent];
  'profile-changed': [ProfileChangedEvent];
}

/** A write's place in its workshop's publishing order (`DomainEventBus.reserve`). */
export interface PublishTicket {
  /** The write committed: its events go out once every earlier reserved `seq` of the workshop has. */
  publish(events: readonly WorkshopEvent[]): void;
  /** The write did not commit: later writes no longer wait for it. */
  drop(): void;
}

interface Reservation {
  seq: number;
  events: readonly WorkshopEvent[] | null;
  dropped: boolean;
}

/**
 * In-process fan-out of committed changes. Services publish only after their transaction
 * commits; realtime and other listeners subscribe. One bus per app instance, never global.
 *
 * A workshop's events reach listeners in `seq` order. Commits of one workshop are ordered by its
 * lock, but what follows a commit is asynchronous: a write reserves its place when its events are
 * numbered (still holding the lock), and its events wait for every earlier reservation.
 */
export class DomainEventBus extends EventEmitter<BusEvents> {
  private readonly reserved = new Map<string, Reservation[]>();

  constructor() {
    super();
    // Every connected screen adds no listener here; only a handful of subsystems do.
    this.setMaxListeners(50);
  }

  /** Reserves the place of a write whose first event of `workshopId` is numbered `seq`. */
  reserve(workshopId: string, seq: number): PublishTicket {
    const reservation: Reservation = { seq, events: null, dropped: false };
    let queue = this.reserved.get(workshopId);
    if (!queue) this.reserved.set(workshopId, (queue = []));
    // Reservations arrive in seq order (numbering happens under the workshop's lock); a late one is placed.
    let at = queue.length;
    while (at > 0 && queue[at - 1]!.seq > seq) at -= 1;
    queue.splice(at, 0, reservation);
    return {
      publish: (events) => {
        reservation.events = events;
        this.drain(workshopId);
      },
      drop: () => {
        reservation.dropped = true;
        this.drain(workshopId);
      },
    };
  }

  private drain(workshopId: string): void {
    const queue = this.reserved.get(workshopId);
    if (!queue) return;
    while (queue.length > 0 && (queue[0]!.dropped || queue[0]!.events)) {
      const head = queue.shift()!;
      for (const event of head.events ?? []) {
        try {
          this.emit('workshop', event);
        } catch (err) {
          // The write has committed: a failing listener must not hold up the others or the caller.
          console.error('[events] listener failed after commit', err);
        }
      }
    }
    if (queue.length === 0) this.reserved.delete(workshopId);
  }
}
