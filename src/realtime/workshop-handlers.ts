import * as v from 'valibot';
import type { AppDeps } from '../deps';
import type { KeyedLock } from '../lib/keyed-lock';
import { isUnavailable } from '../db/errors';
import { AppError } from '../http/errors';
import { idString, parseInput } from '../http/validation';
import { eventsAfter } from '../modules/events/log';
import { findAccess, type LoadedAccess } from '../modules/access/load';
import { liveJoinRefused } from '../modules/access/sso';
import { audienceIncludes } from './audience';
import { deliveriesFor } from './deliveries';
import { VisibilityMemo } from '../modules/access/visibility';
import { MAX_REPLAY, type JoinAck, type LeaveAck, type SocketError } from './events';
import type { JoinLimits } from './join-limits';
import type { Presence } from './presence';
import type { ReplayGuard } from './replay-guard';
import { allRoomsOf, joinedWorkshops, memberRooms, roleRoom } from './rooms';
import type { DynamicEmit, RealtimeSocket } from './server-types';

export interface HandlerContext {
  deps: AppDeps;
  presence: Presence;
  guard: ReplayGuard;
  limits: JoinLimits;
  /** The per-workshop order live events leave in (`broadcast.ts`); a join takes its turn in it. */
  order: KeyedLock;
}

const JoinRequest = v.object({
  workshop_id: idString,
  since_seq: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const LeaveRequest = v.object({ workshop_id: idString });

/** REST's rules for a request body (`parseInput`, unstorable text included), answered as a socket error. */
function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> | SocketError {
  try {
    return parseInput(schema, input);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: 'invalid_request', message: err.message, ...(err.details ? { details: err.details } : {}) };
  }
}

const isError = (x: unknown): x is SocketError => typeof x === 'object' && x !== null && 'code' in x && 'message' in x;

/** Acks are optional for clients; a non-function in that place is ignored. */
function answer<T>(ack: unknown, value: T) {
  if (typeof ack === 'function') (ack as (value: T) => void)(value);
}

/** `join` and `leave` for one socket, and presence upkeep when it goes away. */
export function registerWorkshopHandlers(ctx: HandlerContext, socket: RealtimeSocket): void {
  socket.on('join', async (request, ack) => {
    try {
      const wait = await ctx.limits.joinAllowed(socket.id, socket.data.user.id);
      if (wait !== null) {
        answer<JoinAck>(ack, {
          ok: false,
          error: { code: 'rate_limited', message: `Too many joins; try again in ${wait} s.`, retry_after: wait },
        });
        return;
      }
      answer<JoinAck>(ack, await join(ctx, socket, request));
    } catch (err) {
      // Whatever failed, the client gets an answer and the process goes on.
      answer<JoinAck>(ack, { ok: false, error: joinFailure(err) });
    }
  });
  socket.on('leave', (request, ack) => answer<LeaveAck>(ack, leave(ctx, socket, request)));
  socket.on('disconnecting', () => {
    for (const id of joinedWorkshops(socket.rooms)) ctx.presence.changed(id);
  });
}

async function accessFor(ctx: HandlerContext, socket: RealtimeSocket, id: string): Promise<LoadedAccess | SocketError> {
  try {
    const { db } = ctx.deps.database;
    const access = await findAccess(db, id, socket.data.user.id);
    if (!access) return { code: 'not_found', message: 'Workshop not found.' };
    const session = { userId: socket.data.user.id, method: socket.data.signInMethod };
    if (await liveJoinRefused(db, session, access.workshop)) {
      return { code: 'sso_required', message: 'This organization requires single sign-on: sign in with its provider.' };
    }
    return access;
  } catch (err) {
    return joinFailure(err);
  }
}

/** The database away or busy is the client's to retry, as a REST 503 is; anything else is logged as a fault. */
function joinFailure(err: unknown): SocketError {
  if (isUnavailable(err))
    return {
      code: 'service_unavailable',
      message: 'The service is busy or restarting; join again shortly.',
      retry_after: 1,
    };
  console.error('[realtime] join failed', err);
  return { code: 'internal_error', message: 'Something went wrong on our side.' };
}

/**
 * Joins the workshop's rooms, then (with `since_seq`) replays what the client missed. The access
 * is read before anything waits, and again in the turn of a replay. A plain join takes the rooms at once; a replay runs in the
 * workshop's turn of live events (`HandlerContext.order`): rooms joined, then the log read and
 * replayed, while no live event of that workshop leaves this instance. A change committed before
 * the read is in the replay (its live copy, sent after, is dropped by the guard); one committed
 * after it is sent live. The guard also drops late copies of changes made on other instances.
 */
async function join(ctx: HandlerContext, socket: RealtimeSocket, request: unknown): Promise<JoinAck> {
  const input = parse(JoinRequest, request);
  if (isError(input)) return { ok: false, error: input };
  const access = await accessFor(ctx, socket, input.workshop_id);
  if (isError(access)) {
    // A refused join (access lost since an earlier one) takes the socket out of that workshop.
    leaveAll(ctx, socket, input.workshop_id);
    return { ok: false, error: access };
  }
  const latest = access.workshop.lastEventSeq;
  const since = input.since_seq;
  if (
    since === undefined ||
    since > latest ||
    latest - since > MAX_REPLAY ||
    !(await ctx.limits.replayAllowed(socket.data.user.id, latest - since))
  ) {
    // Armed before the rooms are joined: a live copy of a change the ack's seq covers, still on
    // its way, is dropped; anything later goes through.
    ctx.guard.arm(socket, access.workshop.id, latest);
    joinRooms(ctx, socket, access);
    return since === undefined ? { ok: true, seq: latest } : { ok: true, seq: latest, reload: true };
  }
  return ctx.order.run(access.workshop.id, () => replayInTurn(ctx, socket, access, since));
}

/** The socket in the rooms of its role in the workshop (a second join, after a role change, starts clean). */
function joinRooms(ctx: HandlerContext, socket: RealtimeSocket, access: LoadedAccess): void {
  const { id } = access.workshop;
  // The in-memory and Redis adapters join and leave at once (the handlers rely on it); the promise
  // in Socket.IO's type is other adapters'.
  void socket.leave(roleRoom(id, access.role === 'facilitator' ? 'participant' : 'facilitator'));
  void socket.join(memberRooms(id, socket.data.user.id, access.role));
  ctx.presence.changed(id);
}

/**
 * Joins the rooms and replays the log after `since`, in the workshop's turn. The replay was taken
 * from the user's budget (`JoinLimits`) by the gap the earlier access showed; a gap past `MAX_REPLAY` is
 * answered `reload` before, whatever the budget, so it costs none.
 */
async function replayInTurn(
  ctx: HandlerContext,
  socket: RealtimeSocket,
  earlier: LoadedAccess,
  since: number,
): Promise<JoinAck> {
  const { id } = earlier.workshop;
  const userId = socket.data.user.id;
  // Read again in the turn: a role change delivered while this join waited for it moved no room of
  // this socket's, so the rooms and the replay must go by the role as it is now.
  const access = await accessFor(ctx, socket, id);
  if (isError(access)) {
    leaveAll(ctx, socket, id);
    return { ok: false, error: access };
  }
  joinRooms(ctx, socket, access);
  ctx.guard.disarm(socket, id);
  const { db } = ctx.deps.database;
  const missed = await eventsAfter(db, id, since, MAX_REPLAY);
  const memo = new VisibilityMemo();
  for (const event of missed) {
    for (const delivery of await deliveriesFor(db, event, memo)) {
      if (audienceIncludes(delivery.audience, access.role, userId))
        (socket.emit as DynamicEmit)(delivery.event, delivery.payload);
    }
  }
  // Changes may have committed since the access was read: the log says how far the replay went.
  const seq = Math.max(access.workshop.lastEventSeq, missed.at(-1)?.seq ?? 0);
  ctx.guard.arm(socket, id, seq);
  return { ok: true, seq, replayed: missed.length };
}

function leave(ctx: HandlerContext, socket: RealtimeSocket, request: unknown): LeaveAck {
  const input = parse(LeaveRequest, request);
  if (isError(input)) return { ok: false, error: input };
  leaveAll(ctx, socket, input.workshop_id);
  return { ok: true };
}

function leaveAll(ctx: HandlerContext, socket: RealtimeSocket, workshopId: string): void {
  const rooms = allRoomsOf(workshopId, socket.data.user.id);
  if (!rooms.some((room) => socket.rooms.has(room))) return;
  // At once, as in joinRooms.
  for (const room of rooms) void socket.leave(room);
  ctx.presence.changed(workshopId);
}
