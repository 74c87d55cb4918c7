import type { AppDeps } from '../deps';
import type { KeyedLock } from '../lib/keyed-lock';
import type { NotificationEvent, WorkshopEvent } from '../domain/bus';
import { evictWorkshop, recheckAccess } from './access-sync';
import type { ClusterReachable } from './cluster';
import type { Delivery } from './audience';
import { deliveriesFor } from './deliveries';
import type { Presence } from './presence';
import { memberRoom, roleRoom, userRoom, workshopRoom } from './rooms';
import type { DynamicEmit, RealtimeServer } from './server-types';

/** Sends one rendering of a change to its audience's rooms: one serialization per rendering. */
export function emitDelivery(io: RealtimeServer, workshopId: string, delivery: Delivery): void {
  const { roles, user, except } = delivery.audience;
  const oneRole = roles.length === 1 ? roles[0]! : null;
  // A user's sockets in one role: their member room, less the other role's room.
  const target =
    user !== undefined
      ? io
          .to(memberRoom(workshopId, user))
          .except(oneRole ? [roleRoom(workshopId, oneRole === 'facilitator' ? 'participant' : 'facilitator')] : [])
      : io
          .to(oneRole ? roleRoom(workshopId, oneRole) : workshopRoom(workshopId))
          .except(except.map((id) => memberRoom(workshopId, id)));
  (target.emit as DynamicEmit)(delivery.event, delivery.payload);
}

/**
 * The one path from committed writes to sockets: every workshop event the bus publishes (after its
 * transaction committed, in `seq` order per workshop) becomes the socket events `deliveriesFor`
 * renders; notifications go to their user's private room. Rendering reads the database, so a
 * workshop's events are rendered and sent one after another through `order` (one lock per
 * workshop, shared with joins: a resume's replay never interleaves with that workshop's live
 * events). Returns the stop function, which resolves once nothing is being sent.
 */
export function broadcastChanges(
  deps: AppDeps,
  io: RealtimeServer,
  presence: Presence,
  reachable: ClusterReachable,
  order: KeyedLock,
): () => Promise<void> {
  const deliver = async (event: WorkshopEvent) => {
    const { workshopId } = event;
    // A promoted or demoted member's open sockets change role rooms before the event goes out, to
    // the role their access gives now (an organization admin stays a facilitator whatever the member role).
    if (event.action === 'updateMember')
      await recheckAccess(deps, io, presence, event.change.member.user_id, [workshopId]);
    for (const delivery of await deliveriesFor(deps.database.db, event)) {
      emitDelivery(io, workshopId, delivery);
      deps.metrics.liveEventSent(delivery.event);
    }
    if (event.action === 'removeWorkshop') {
      // Nothing of this workshop will be sent again; its rooms, per-user ones included, would only linger.
      evictWorkshop(io, workshopId, reachable).catch((err) =>
        console.error('[realtime] leaving a deleted workshop failed', err),
      );
    }
  };
  // Sending reads the database: closing waits for what is under way, so the store closes after it.
  const sending = new Set<Promise<void>>();
  let closed = false;
  const onWorkshop = (event: WorkshopEvent) => {
    const sent = order
      .run(event.workshopId, () => (closed ? undefined : deliver(event)))
      .catch((err) => console.error(`[realtime] could not send ${event.action} (seq ${event.seq})`, err))
      .finally(() => sending.delete(sent));
    sending.add(sent);
  };
  const onNotification = ({ userId, notification }: NotificationEvent) => {
    io.to(userRoom(userId)).emit('notification', notification);
    deps.metrics.liveEventSent('notification');
  };
  deps.bus.on('workshop', onWorkshop);
  deps.bus.on('notification', onNotification);
  return async () => {
    deps.bus.off('workshop', onWorkshop);
    deps.bus.off('notification', onNotification);
    closed = true;
    await Promise.all(sending);
  };
}
