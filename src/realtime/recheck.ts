import type { AppDeps } from '../deps';
import { tokensAlive } from '../lib/tokens-alive';
import { accessKey, findAccesses } from '../modules/access/load';
import { liveJoinRefused } from '../modules/access/sso';
import type { SessionAuth } from '../http/session-auth';
import { placeByRole, placedByRole } from './access-sync';
import type { Presence } from './presence';
import { joinedWorkshops } from './rooms';
import type { RealtimeServer } from './server-types';

/** Sockets checked per turn of the event loop, so a re-check of thousands never holds it long. */
const BATCH = 200;

/**
 * Checks this instance's sockets against the database again: a socket whose token no longer works
 * (logged out, expired) is disconnected; each workshop it joined is checked again: a changed role
 * moves it between role rooms, lost access (or a password session in a workshop whose organization
 * now requires single sign-on) takes it out. Logouts and role changes normally arrive
 * at once through the bus and Redis; this catches what an outage kept from arriving. Each token is
 * asked about once, and the accesses of a batch of sockets are read together (`findAccesses`): a
 * few statements per batch, not two per socket.
 */
export async function recheckLocalSockets(
  deps: AppDeps,
  io: RealtimeServer,
  presence: Presence,
  auth: SessionAuth,
): Promise<void> {
  const sockets = await io.local.fetchSockets();
  const workshops = new Set<string>();
  for (let start = 0; start < sockets.length; start += BATCH) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const batch = sockets.slice(start, start + BATCH);
    const alive = await tokensAlive(
      (tokenHash) => auth.isAlive(tokenHash),
      batch.map((socket) => socket.data.tokenHash),
    );
    const joined: Array<{ socket: (typeof batch)[number]; workshopId: string }> = [];
    for (const socket of batch) {
      if (!alive.get(socket.data.tokenHash)) socket.disconnect(true);
      else for (const workshopId of joinedWorkshops(socket.rooms)) joined.push({ socket, workshopId });
    }
    const accesses = await findAccesses(
      deps.database.db,
      joined.map(({ socket, workshopId }) => ({ workshopId, userId: socket.data.user.id })),
    );
    const moved = new Set<string>();
    const ssoRefused = new Map<string, Promise<boolean>>();
    for (const { socket, workshopId } of joined) {
      const userId = socket.data.user.id;
      const key = accessKey(workshopId, userId);
      const access = accesses.get(key);
      // A password session in a workshop whose organization came to require single sign-on is
      // taken out as a stranger would be (docs/integrations.md#requiring-it-for-an-organization).
      let refused: Promise<boolean> | undefined;
      if (access && socket.data.signInMethod === 'password') {
        refused =
          ssoRefused.get(key) ?? liveJoinRefused(deps.database.db, { userId, method: 'password' }, access.workshop);
        ssoRefused.set(key, refused);
      }
      const role = access && !(await refused) ? access.role : null;
      workshops.add(workshopId);
      // Moves are sent to every instance: only for a socket whose rooms are not right already, once per member.
      if (placedByRole(socket.rooms, workshopId, role) || moved.has(key)) continue;
      moved.add(key);
      placeByRole(io, userId, workshopId, role);
    }
  }
  // Presence is counted again too: an outage may have kept other instances' leaves from arriving.
  for (const workshopId of workshops) presence.changed(workshopId);
}

/** Runs `recheckLocalSockets` every `everyMs`, one run at a time; returns the stop function. */
export function recheckPeriodically(run: () => Promise<void>, everyMs: number): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    run()
      .catch((err) => console.error('[realtime] re-checking sockets failed', err))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
