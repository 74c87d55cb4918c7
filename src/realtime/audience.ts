import type { WorkshopRole } from '../modules/access/rules';
import type { ServerToClientEvents, WorkshopEventName } from './events';

/**
 * Who receives one rendering of a change. The audiences of one change never overlap for the same
 * event name, so every joined socket gets each event of the change at most once.
 */
export type Audience =
  | { to: 'workshop' }
  | { to: 'facilitators' }
  /** Participants, except these users (they get their own rendering). */
  | { to: 'participants'; except: readonly string[] }
  /** This user's sockets, if the user is a participant. */
  | { to: 'participant'; userId: string };

export type Delivery = {
  [E in WorkshopEventName]: { audience: Audience; event: E; payload: Parameters<ServerToClientEvents[E]>[0] };
}[WorkshopEventName];

/** Whether a socket of `userId` in `role` is part of `audience` (replay picks its renderings this way). */
export function audienceIncludes(audience: Audience, role: WorkshopRole, userId: string): boolean {
  switch (audience.to) {
    case 'workshop':
      return true;
    case 'facilitators':
      return role === 'facilitator';
    case 'participants':
      return role === 'participant' && !audience.except.includes(userId);
    case 'participant':
      return role === 'participant' && audience.userId === userId;
  }
}
