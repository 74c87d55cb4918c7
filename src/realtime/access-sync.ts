import type { AppDeps } from '../deps';
import type { AccessChangedEvent, SessionRevokedEvent } from '../domain/bus';
import { findAccess } from '../modules/access/load';
import type { WorkshopRole } from '../domain/permissions';
import type { Presence } from './presence';
import { allRoomsOf, memberRoom, roleRoom, tokenRoom, workshopRoom } from './rooms';
import type { RealtimeServer } from './server-types';
import { moveSockets, socketsIn, workshopsJoinedBy, type ClusterReachable } from './cluster';

/**
 * Puts one user's sockets joined to these workshops in the rooms their access allows now: the
 * role room of their current role, or none of the workshop's rooms once they lost access. The
 * rights are read again from the database (`findAccess`), never inferred from the change.
 */
export async function recheckAccess(
  deps: AppDeps,
  io: RealtimeServer,
  presence: Presence,
  userId: string,
  workshopIds: Iterable<string>,
): Promise<void> {
  for (const workshopId of new Set(workshopIds)) {
    let role: WorkshopRole | null = null;
    try {
      role = (await findAccess(deps.database.db, workshopId, userId))?.role ?? null;
    } catch (err) {
      // Without a readable answer the safe side is out: the client may join again.
      console.error('[realtime] access check failed', err);
    }
    placeByRole(io, userId, workshopId, role);
    presence.changed(workshopId);
  }
}

/** Moves a user's sockets joined to a workshop, on every instance, to the rooms of `role` (out of them all without one). */
export function placeByRole(io: RealtimeServer, userId: string, workshopId: string, role: WorkshopRole | null): void {
  const from = memberRoom(workshopId, userId);
  if (role) {
    const other = role === 'facilitator' ? 'participant' : 'facilitator';
    moveSockets(io, from, { leave: [roleRoom(workshopId, other)], join: roleRoom(workshopId, role) });
  } else {
    moveSockets(io, from, { leave: allRoomsOf(workshopId, userId) });
  }
}

/** Whether a socket's rooms in a workshop are already those `role` gives (none without one). */
export function placedByRole(rooms: ReadonlySet<string>, workshopId: string, role: WorkshopRole | null): boolean {
  if (!role) return !rooms.has(workshopRoom(workshopId));
  const other = role === 'facilitator' ? 'participant' : 'facilitator';
  return rooms.has(roleRoom(workshopId, role)) && !rooms.has(roleRoom(workshopId, other));
}

/** Takes every socket, on every instance, out of a deleted workshop's rooms, per-user rooms included. */
export async function evictWorkshop(
  io: RealtimeServer,
  workshopId: string,
  reachable: ClusterReachable,
): Promise<void> {
  const sockets = await socketsIn(io, workshopRoom(workshopId), reachable);
  const users = new Set(sockets.map((s) => s.data.user?.id).filter((id): id is string => id !== undefined));
  for (const userId of users)
    moveSockets(io, memberRoom(workshopId, userId), { leave: allRoomsOf(workshopId, userId) });
  moveSockets(io, workshopRoom(workshopId), {
    leave: [workshopRoom(workshopId), roleRoom(workshopId, 'facilitator'), roleRoom(workshopId, 'participant')],
  });
}

/**
 * Keeps live sockets within their user's rights: a revoked token's sockets are disconnected on
 * every instance (docs/api.md#accounts-and-tokens: it stops working at once), and when a user's access changed outside
 * a workshop's log (an organization membership), each workshop their sockets joined is checked
 * again. Returns the unsubscribe function.
 */
export function syncAccess(
  deps: AppDeps,
  io: RealtimeServer,
  presence: Presence,
  reachable: ClusterReachable,
): () => void {
  const onRevoked = ({ tokenHash }: SessionRevokedEvent) => {
    const room = tokenRoom(tokenHash);
    io.local.in(room).disconnectSockets(true);
    io.in(room).disconnectSockets(true);
  };
  const onAccessChanged = ({ userId }: AccessChangedEvent) => {
    workshopsJoinedBy(io, userId, reachable)
      .then((workshopIds) => recheckAccess(deps, io, presence, userId, workshopIds))
      .catch((err) => console.error('[realtime] access re-check failed', err));
  };
  deps.bus.on('session-revoked', onRevoked);
  deps.bus.on('access-changed', onAccessChanged);
  return () => {
    deps.bus.off('session-revoked', onRevoked);
    deps.bus.off('access-changed', onAccessChanged);
  };
}
