import type { SocketData } from './events';
import { joinedWorkshops, userRoom } from './rooms';
import type { RealtimeServer } from './server-types';

/*
 * Asking every instance about sockets. Through Redis, `fetchSockets` and room moves are requests to
 * the other instances; when those cannot answer, this instance still acts on its own sockets.
 */

/** False while the instances cannot reach each other: only this instance's sockets are asked. */
export type ClusterReachable = () => boolean;

/** What a socket on any instance shows of itself. */
export interface SocketView {
  data: Partial<SocketData>;
  rooms: Set<string>;
}

/** The sockets in a room on every instance (this instance's only, when the others cannot answer). */
export async function socketsIn(io: RealtimeServer, room: string, reachable: ClusterReachable): Promise<SocketView[]> {
  if (!reachable()) return io.local.in(room).fetchSockets();
  try {
    return await io.in(room).fetchSockets();
  } catch {
    // The other instances did not answer in time (Redis went away meanwhile): ours still count.
    return io.local.in(room).fetchSockets();
  }
}

/** The workshops one user's sockets joined, on every instance (this instance's, when the others cannot answer). */
export async function workshopsJoinedBy(
  io: RealtimeServer,
  userId: string,
  reachable: ClusterReachable,
): Promise<string[]> {
  const sockets = await socketsIn(io, userRoom(userId), reachable);
  return [...new Set(sockets.flatMap((socket) => joinedWorkshops(socket.rooms)))];
}

/**
 * Moves sockets between rooms on every instance. Through Redis the move is a request that this
 * instance also receives; doing it locally first keeps local sockets right while Redis is away.
 */
export function moveSockets(io: RealtimeServer, from: string, change: { join?: string; leave?: string[] }): void {
  for (const operator of [io.local.in(from), io.in(from)]) {
    if (change.leave) operator.socketsLeave(change.leave);
    if (change.join) operator.socketsJoin(change.join);
  }
}
