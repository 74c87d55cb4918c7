import { PRESENCE_LIST_LIMIT, type PresencePayload, type PresenceUser } from './events';
import { roleRoom, workshopRoom } from './rooms';
import type { RealtimeServer } from './server-types';
import { socketsIn, type ClusterReachable, type SocketView } from './cluster';

/** Changes this close together make one presence event. */
const MIN_DELAY_MS = 50;
/** A crowded room waits longer, so joining crowds cost a bounded number of presence events. */
const MAX_DELAY_MS = 5_000;
const DELAY_PER_SOCKET_MS = 1;

/**
 * Who is connected to each workshop. A join, leave or disconnect schedules one recount of the
 * workshop's room (across instances, through the adapter), which is broadcast to the room once.
 */
export class Presence {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly io: RealtimeServer,
    /** False while the instances cannot reach each other: count local sockets only. */
    private readonly clusterReachable: ClusterReachable,
  ) {}

  /** Someone joined or left `workshopId`: recount soon. */
  changed(workshopId: string): void {
    if (this.closed || this.pending.has(workshopId)) return;
    const localSockets = this.io.sockets.adapter.rooms.get(workshopRoom(workshopId))?.size ?? 0;
    const delay = Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, localSockets * DELAY_PER_SOCKET_MS));
    const timer = setTimeout(() => {
      this.pending.delete(workshopId);
      this.publish(workshopId).catch((err) => console.error('[realtime] presence failed', err));
    }, delay);
    timer.unref();
    this.pending.set(workshopId, timer);
  }

  /** The workshop's connected users, as a presence event. */
  async current(workshopId: string): Promise<PresencePayload> {
    return toPresence(workshopId, await socketsIn(this.io, workshopRoom(workshopId), this.clusterReachable));
  }

  close(): void {
    this.closed = true;
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private async publish(workshopId: string) {
    const payload = await this.current(workshopId);
    if (!this.closed) this.io.to(workshopRoom(workshopId)).emit('presence', payload);
  }
}

function toPresence(workshopId: string, sockets: SocketView[]): PresencePayload {
  const facilitators = roleRoom(workshopId, 'facilitator');
  const users = new Map<string, { user: PresenceUser; facilitator: boolean }>();
  for (const socket of sockets) {
    const user = socket.data.user;
    if (!user) continue;
    const facilitator = socket.rooms.has(facilitators) || users.get(user.id)?.facilitator === true;
    users.set(user.id, { user, facilitator });
  }
  const ordered = [...users.values()].sort(
    (a, b) => Number(b.facilitator) - Number(a.facilitator) || a.user.name.localeCompare(b.user.name) || a.user.id.localeCompare(b.user.id),
  );
  return {
    workshop_id: workshopId,
    users: ordered.slice(0, PRESENCE_LIST_LIMIT).map(({ user }) => ({ id: user.id, name: user.name, avatar_url: user.avatar_url, guest: user.guest })),
    count: users.size,
  };
}
