import type { AppDeps } from '../deps';
import type { SessionAuth } from '../modules/auth/service';
import { recheckAccess } from './access-sync';
import type { Presence } from './presence';
import { joinedWorkshops } from './rooms';
import type { RealtimeServer } from './server-types';

/** Sockets checked per turn of the event loop, so a re-check of thousands never holds it long. */
const BATCH = 200;

/**
 * Checks this instance's sockets against the database again: a socket whose token no longer works
 * (logged out, expired) is disconnected; each workshop it joined is checked again (`recheckAccess`:
 * a changed role moves it between role rooms, lost access takes it out). Logouts and role changes
 * normally arrive at once through the bus and Redis; this catches what an outage kept from arriving.
 */
export async function recheckLocalSockets(deps: AppDeps, io: RealtimeServer, presence: Presence, auth: SessionAuth): Promise<void> {
  const sockets = await io.local.fetchSockets();
  for (let start = 0; start < sockets.length; start += BATCH) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const socket of sockets.slice(start, start + BATCH)) {
      if (!(await auth.isAlive(socket.data.tokenHash))) {
        socket.disconnect(true);
        continue;
      }
      const joined = joinedWorkshops(socket.rooms);
      if (joined.length > 0) await recheckAccess(deps, io, presence, socket.data.user.id, joined);
    }
  }
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
