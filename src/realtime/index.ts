import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { AppDeps } from '../deps';
import { toUserSummary } from '../modules/users/schemas';
import { KeyedLock } from '../lib/keyed-lock';
import { syncAccess } from './access-sync';
import { broadcastChanges } from './broadcast';
import { JoinLimits } from './join-limits';
import { announceParticipation } from './participation';
import { Presence } from './presence';
import { recheckLocalSockets, recheckPeriodically } from './recheck';
import { connectRedis } from './redis';
import { ReplayGuard } from './replay-guard';
import { joinedWorkshops, tokenRoom, userRoom } from './rooms';
import type { RealtimeServer, RealtimeSocket } from './server-types';
import { registerWorkshopHandlers } from './workshop-handlers';

export type { RealtimeServer, RealtimeSocket } from './server-types';

export interface Realtime {
  io: RealtimeServer;
  /** Resolves once cross-instance fan-out is up (at once without `REDIS_URL`). */
  ready: Promise<void>;
  /**
   * Disconnects this instance's sockets and takes no new ones. Events go on being sent, to other
   * instances' sockets through Redis, for the writes still finishing here.
   */
  disconnect(): void;
  /**
   * Stops sending events (once those under way have left) and closes Redis, after disconnecting
   * the sockets if that was not done; the HTTP server itself is left to its owner. Call it once
   * no request that may write is in flight: the events of a write committing later reach nobody.
   */
  close(): Promise<void>;
}

/**
 * Socket.IO on the REST server's port. Clients connect with `io(origin, {auth: {token}})`, join
 * workshops (`join`/`leave`, see `events.ts`) and receive every committed change of those workshops,
 * plus their own notifications. With `REDIS_URL`, rooms span every instance.
 */
export function attachRealtime(deps: AppDeps, httpServer: HttpServer): Realtime {
  const io: RealtimeServer = new Server(httpServer, {
    serveClient: false,
    // Upgrades for other paths (the Yjs endpoint under /v1/sync/) are left to their own handler.
    destroyUpgrade: false,
    // The same origins as REST; tokens travel in `auth`, never in cookies.
    cors: { origin: deps.config.corsOrigins, credentials: false },
  });
  // Logouts and role changes made on other instances while Redis was away never arrived here.
  const redis = deps.config.redisUrl
    ? connectRedis(deps.config.redisUrl, { onRecovered: () => void recheckNow() })
    : null;
  if (redis) io.adapter(redis.adapter);

  // Socket.IO keeps each connection's first HTTP request for its whole life; nothing here reads it
  // after the handshake (the token travels in `auth`), so it is let go (Socket.IO's memory advice).
  io.engine.on('connection', (raw: { request: unknown }) => {
    raw.request = null;
  });

  const { auth } = deps;
  /** Who the handshake's token belongs to, on the socket; or the error the client is refused with. */
  const admit = async (socket: RealtimeSocket): Promise<Error | undefined> => {
    const token: unknown = socket.handshake.auth?.token;
    const found = typeof token === 'string' && token.length > 0 ? await auth.authenticate(token) : null;
    if (!found) return Object.assign(new Error('unauthenticated'), { data: { code: 'unauthenticated' } });
    socket.data.user = toUserSummary(found.user);
    socket.data.tokenHash = found.tokenHash;
    socket.data.signInMethod = found.method;
    return undefined;
  };
  // Socket.IO ignores what a middleware returns: a failed handshake must still call `next`.
  io.use((socket, next) => {
    admit(socket).then(next, (err: unknown) => {
      console.error('[realtime] handshake failed', err);
      next(Object.assign(new Error('internal_error'), { data: { code: 'internal_error' } }));
    });
  });

  const reachable = () => !redis || redis.healthy();
  const presence = new Presence(io, reachable, deps.database);
  const guard = new ReplayGuard();
  const limits = new JoinLimits(deps);
  // Each workshop's live events, and the replays of its resumes, leave one after another.
  const order = new KeyedLock();
  io.on('connection', (socket) => {
    // The in-memory and Redis adapters join at once; the promise in Socket.IO's type is other adapters'.
    void socket.join([userRoom(socket.data.user.id), tokenRoom(socket.data.tokenHash)]);
    registerWorkshopHandlers({ deps, presence, guard, limits, order }, socket);
  });
  function recheckNow(): Promise<void> {
    return recheckLocalSockets(deps, io, presence, auth).catch((err) =>
      console.error('[realtime] re-checking sockets failed', err),
    );
  }
  const { metrics, readiness } = deps;
  // Read on each metrics scrape; the adapter's rooms are this instance's, with or without Redis.
  const namespace = io.of('/');
  const unsubscribe: Array<() => void | Promise<void>> = [
    metrics.sample('socketConnections', () => namespace.sockets.size),
    metrics.sample('workshopRooms', () => joinedWorkshops(namespace.adapter.rooms.keys()).length),
    ...(redis ? [metrics.watchRedis('realtime', redis.healthy), readiness.dependOn('Redis', redis.healthy)] : []),
    broadcastChanges(deps, io, presence, reachable, order),
    syncAccess(deps, io, presence, reachable),
    presence.followProfiles(deps.bus),
    recheckPeriodically(recheckNow, deps.config.liveRecheckMs),
    announceParticipation(deps, io),
  ];

  let disconnected = false;
  const disconnect = () => {
    if (disconnected) return;
    disconnected = true;
    presence.close();
    io.local.disconnectSockets(true);
    io.engine.close();
  };
  return {
    io,
    ready: redis?.ready ?? Promise.resolve(),
    disconnect,
    async close() {
      disconnect();
      await Promise.all(unsubscribe.map(async (stop) => stop()));
      await io.of('/').adapter.close();
      await redis?.close();
    },
  };
}
