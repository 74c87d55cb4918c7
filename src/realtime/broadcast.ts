import type { AppDeps } from '../deps';
import type { NotificationEvent, WorkshopEvent } from '../modules/events/bus';
import type { WorkshopRole } from '../modules/workshops/access';
import { deliveriesFor, type Delivery } from './deliveries';
import type { Presence } from './presence';
import { memberRoom, roleRoom, userRoom, workshopRoom } from './rooms';
import type { DynamicEmit, RealtimeServer } from './server-types';

/** Sends one rendering of a change to its audience's rooms: one serialization per rendering. */
export function emitDelivery(io: RealtimeServer, workshopId: string, delivery: Delivery): void {
  const { audience } = delivery;
  const target =
    audience.to === 'workshop'
      ? io.to(workshopRoom(workshopId))
      : audience.to === 'facilitators'
        ? io.to(roleRoom(workshopId, 'facilitator'))
        : audience.to === 'participants'
          ? io.to(roleRoom(workshopId, 'participant')).except(audience.except.map((id) => memberRoom(workshopId, id)))
          : io.to(memberRoom(workshopId, audience.userId)).except(roleRoom(workshopId, 'facilitator'));
  (target.emit as DynamicEmit)(delivery.event, delivery.payload);
}

/**
 * Moves sockets between rooms on every instance. Through Redis the move is a request that this
 * instance also receives; doing it locally first keeps local sockets right while Redis is away.
 */
function moveSockets(io: RealtimeServer, from: string, change: { join?: string; leave?: string[] }) {
  for (const operator of [io.local.in(from), io.in(from)]) {
    if (change.leave) operator.socketsLeave(change.leave);
    if (change.join) operator.socketsJoin(change.join);
  }
}

/**
 * The one path from committed writes to sockets: every workshop event the bus publishes (after its
 * transaction committed) becomes the socket events `deliveriesFor` renders; notifications go to
 * their user's private room. Returns the unsubscribe function.
 */
export function broadcastChanges(deps: AppDeps, io: RealtimeServer, presence: Presence): () => void {
  const onWorkshop = (event: WorkshopEvent) => {
    const { workshopId } = event;
    if (event.action === 'updateMember') {
      // A promoted or demoted member's open sockets change role rooms before the event goes out.
      const member = event.change.member as { user_id: string; role: WorkshopRole };
      const old: WorkshopRole = member.role === 'facilitator' ? 'participant' : 'facilitator';
      moveSockets(io, memberRoom(workshopId, member.user_id), { leave: [roleRoom(workshopId, old)], join: roleRoom(workshopId, member.role) });
      presence.changed(workshopId);
    }
    for (const delivery of deliveriesFor(deps.database.db, event)) emitDelivery(io, workshopId, delivery);
    if (event.action === 'removeWorkshop') {
      // Member rooms are per user; they would only ever receive this workshop's events, and there are no more.
      moveSockets(io, workshopRoom(workshopId), { leave: [workshopRoom(workshopId), roleRoom(workshopId, 'facilitator'), roleRoom(workshopId, 'participant')] });
    }
  };
  const onNotification = ({ userId, notification }: NotificationEvent) => {
    io.to(userRoom(userId)).emit('notification', notification);
  };
  deps.bus.on('workshop', onWorkshop);
  deps.bus.on('notification', onNotification);
  return () => {
    deps.bus.off('workshop', onWorkshop);
    deps.bus.off('notification', onNotification);
  };
}
