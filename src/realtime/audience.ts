import type { WorkshopRole } from '../domain/permissions';
import type { ServerToClientEvents, WorkshopEventName } from './events';

/**
 * Who receives one rendering of a change: the joined sockets of some roles, possibly of one user
 * only, less some users. The audiences of one change never overlap for the same event name, so
 * every joined socket gets each event of the change at most once.
 */
export interface Audience {
  /** The roles reached; never empty. */
  readonly roles: readonly WorkshopRole[];
  /** Only this user's sockets (in those roles), when set. */
  readonly user?: string;
  /** These users' sockets are left out. */
  readonly except: readonly string[];
}

const BOTH: readonly WorkshopRole[] = ['facilitator', 'participant'];

export const EVERYONE: Audience = { roles: BOTH, except: [] };
export const FACILITATORS: Audience = { roles: ['facilitator'], except: [] };

/** Participants, except these users (they get their own rendering). */
export const participantsExcept = (except: readonly string[]): Audience => ({ roles: ['participant'], except });

/** This user's sockets, if the user is a participant. */
export const participant = (userId: string): Audience => ({ roles: ['participant'], user: userId, except: [] });

export type Delivery = {
  [E in WorkshopEventName]: { audience: Audience; event: E; payload: Parameters<ServerToClientEvents[E]>[0] };
}[WorkshopEventName];

/** Whether a socket of `userId` in `role` is part of `audience` (replay picks its renderings this way). */
export function audienceIncludes(audience: Audience, role: WorkshopRole, userId: string): boolean {
  return (
    audience.roles.includes(role) &&
    (audience.user === undefined || audience.user === userId) &&
    !audience.except.includes(userId)
  );
}

/** The readers in both audiences, or null when none can be. */
export function intersect(a: Audience, b: Audience): Audience | null {
  const roles = a.roles.filter((role) => b.roles.includes(role));
  if (roles.length === 0) return null;
  if (a.user !== undefined && b.user !== undefined && a.user !== b.user) return null;
  const user = a.user ?? b.user;
  const except = [...new Set([...a.except, ...b.except])];
  if (user !== undefined && except.includes(user)) return null;
  return user === undefined ? { roles, except } : { roles, user, except: [] };
}
