import { inArray } from 'drizzle-orm';
import { tablesOf, type Database } from '../db/database';
import { isUnavailable } from '../db/errors';
import type { DomainEventBus, ProfileChangedEvent } from '../modules/events/bus';
import { toUserSummary } from '../modules/users/schemas';
import { PRESENCE_LIST_LIMIT, type PresencePayload, type PresenceUser } from './events';
import { joinedWorkshops, roleRoom, userRoom, workshopRoom } from './rooms';
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
    private readonly database: Database,
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

  /**
   * The workshop's connected users, as a presence event. Names, avatars and the guest flag are read
   * again for the users listed: a socket keeps the profile it connected with, and a user renamed
   * or a guest who signed up since shows as they are now.
   */
  async current(workshopId: string): Promise<PresencePayload> {
    const payload = toPresence(workshopId, await socketsIn(this.io, workshopRoom(workshopId), this.clusterReachable));
    const profiles = await this.profilesOf(payload.users.map((user) => user.id));
    return { ...payload, users: payload.users.map((user) => profiles.get(user.id) ?? user) };
  }

  /**
   * Recounts every workshop the user's sockets, on any instance, joined: their profile changed.
   * Returns the unsubscribe function.
   */
  followProfiles(bus: DomainEventBus): () => void {
    const onProfileChanged = ({ userId }: ProfileChangedEvent) => {
      socketsIn(this.io, userRoom(userId), this.clusterReachable)
        .then((sockets) => {
          for (const workshopId of new Set(sockets.flatMap((socket) => joinedWorkshops(socket.rooms)))) this.changed(workshopId);
        })
        .catch((err: unknown) => console.error('[realtime] presence after a profile change failed', err));
    };
    bus.on('profile-changed', onProfileChanged);
    return () => bus.off('profile-changed', onProfileChanged);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  /** The users' profiles now; none while the database is away (the sockets' own are shown then). */
  private async profilesOf(userIds: string[]): Promise<Map<string, PresenceUser>> {
    if (userIds.length === 0) return new Map();
    try {
      const { users } = tablesOf(this.database.db);
      const rows = await this.database.db
        .select({ id: users.id, name: users.name, avatarUrl: users.avatarUrl, guest: users.guest })
        .from(users)
        .where(inArray(users.id, userIds));
      return new Map(rows.map((row) => [row.id, toUserSummary(row)]));
    } catch (err) {
      if (!isUnavailable(err)) console.error('[realtime] reading profiles for presence failed', err);
      return new Map();
    }
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
