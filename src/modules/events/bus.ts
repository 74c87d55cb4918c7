import { EventEmitter } from 'node:events';
import type { WorkshopEvent } from './changes';

export type { WorkshopEvent } from './changes';

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

interface BusEvents {
  workshop: [WorkshopEvent];
  notification: [NotificationEvent];
  'session-revoked': [SessionRevokedEvent];
  'access-changed': [AccessChangedEvent];
}

/**
 * In-process fan-out of committed changes. Services publish only after their transaction
 * commits; realtime and other listeners subscribe. One bus per app instance, never global.
 */
export class DomainEventBus extends EventEmitter<BusEvents> {
  constructor() {
    super();
    // Every connected screen adds no listener here; only a handful of subsystems do.
    this.setMaxListeners(50);
  }
}
