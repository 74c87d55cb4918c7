import type { WorkshopRole } from '../domain/permissions';

/*
 * Room names. A joined socket is in three rooms of its workshop: everyone's, its role's, and its
 * user's (several tabs of one user share it). Events that read the same for everyone go to the
 * first; events whose content depends on the reader go to role and user rooms, each serialized once.
 * Every socket is also in its user's private room, for notifications, and in its token's room, so a
 * logout ends it.
 */

/** Everyone joined to the workshop. */
export const workshopRoom = (workshopId: string) => `workshop:${workshopId}`;

/** Joined facilitators, or joined participants. */
export const roleRoom = (workshopId: string, role: WorkshopRole) =>
  `workshop:${workshopId}:${role === 'facilitator' ? 'facilitators' : 'participants'}`;

/** One user's sockets joined to the workshop. */
export const memberRoom = (workshopId: string, userId: string) => `workshop:${workshopId}:user:${userId}`;

/** One user's sockets, whatever they joined: their notifications. */
export const userRoom = (userId: string) => `user:${userId}`;

/** The sockets opened with one bearer token (by its hash): they end when it is revoked. */
export const tokenRoom = (tokenHash: string) => `token:${tokenHash}`;

/** The rooms a member's socket joins for a workshop. */
export const memberRooms = (workshopId: string, userId: string, role: WorkshopRole) => [
  workshopRoom(workshopId),
  roleRoom(workshopId, role),
  memberRoom(workshopId, userId),
];

/** Every room of the workshop a socket of this user may be in (to leave them all). */
export const allRoomsOf = (workshopId: string, userId: string) => [
  workshopRoom(workshopId),
  roleRoom(workshopId, 'facilitator'),
  roleRoom(workshopId, 'participant'),
  memberRoom(workshopId, userId),
];

const WORKSHOP_ROOM = /^workshop:([^:]+)$/;

/** The workshop ids among a socket's rooms. */
export function joinedWorkshops(rooms: Iterable<string>): string[] {
  const ids: string[] = [];
  for (const room of rooms) {
    const match = WORKSHOP_ROOM.exec(room);
    if (match) ids.push(match[1]!);
  }
  return ids;
}
