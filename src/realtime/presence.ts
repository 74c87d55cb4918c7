import type { Database } from '../db/database';
import { isUnavailable } from '../db/errors';
import type { DomainEventBus, ProfileChangedEvent } from '../domain/bus';
import { userSummaries } from '../modules/users/repo';
import { PRESENCE_LIST_LIMIT, type PresencePayload, type PresenceUser } from './events';
import { roleRoom, workshopRoom } from './rooms';
import type { RealtimeServer } from './server-types';
import { socketsIn, workshopsJoinedBy, type ClusterReachable, type SocketView } from './cluster';

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
  /** Each workshop's latest recount: an earlier one still reading when it ends is not sent. */
  private readonly recounts = new Map<string, number>();
  private recounted = 0;
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
    const present = presentIn(workshopId, await socketsIn(this.io, workshopRoom(workshopId), this.clusterReachable));
    const profiles = await this.profilesOf(present.listed.map(({ user }) => user.id));
    const listed = present.listed
      .map((entry) => ({ ...entry, user: profiles.get(entry.user.id) ?? entry.user }))
      .sort(byPresenceOrder);
    const users = listed.map(({ user }) => ({
      id: user.id,
      name: user.name,
      avatar_url: user.avatar_url,
      guest: user.guest,
    }));
    return { workshop_id: workshopId, users, count: present.count };
  }

  /**
   * Recounts every workshop the user's sockets, on any instance, joined: their profile changed.
   * Returns the unsubscribe function.
   */
  followProfiles(bus: DomainEventBus): () => void {
    const onProfileChanged = ({ userId }: ProfileChangedEvent) => {
      workshopsJoinedBy(this.io, userId, this.clusterReachable)
        .then((workshopIds) => {
          for (const workshopId of workshopIds) this.changed(workshopId);
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
    try {
      return new Map((await userSummaries(this.database.db, userIds)).map((user) => [user.id, user]));
    } catch (err) {
      if (!isUnavailable(err)) console.error('[realtime] reading profiles for presence failed', err);
      return new Map();
    }
  }

  private async publish(workshopId: string) {
    const recount = ++this.recounted;
    this.recounts.set(workshopId, recount);
    // A later recount that began while this one read (a slow database) alone says who is here now.
    const latest = () => this.recounts.get(workshopId) === recount;
    try {
      const payload = await this.current(workshopId);
      if (latest() && !this.closed) this.io.to(workshopRoom(workshopId)).emit('presence', payload);
    } finally {
      if (latest()) this.recounts.delete(workshopId);
    }
  }
}

interface PresentUser {
  user: PresenceUser;
  facilitator: boolean;
}

/** Facilitators first, then by name. */
function byPresenceOrder(a: PresentUser, b: PresentUser): number {
  return (
    Number(b.facilitator) - Number(a.facilitator) ||
    a.user.name.localeCompare(b.user.name) ||
    a.user.id.localeCompare(b.user.id)
  );
}

/** Each connected user once, the first `PRESENCE_LIST_LIMIT` in presence order (by the names their sockets hold), and how many there are. */
function presentIn(workshopId: string, sockets: SocketView[]): { listed: PresentUser[]; count: number } {
  const facilitators = roleRoom(workshopId, 'facilitator');
  const users = new Map<string, PresentUser>();
  for (const socket of sockets) {
    const user = socket.data.user;
    if (!user) continue;
    users.set(user.id, {
      user,
      facilitator: socket.rooms.has(facilitators) || users.get(user.id)?.facilitator === true,
    });
  }
  return { listed: [...users.values()].sort(byPresenceOrder).slice(0, PRESENCE_LIST_LIMIT), count: users.size };
}
