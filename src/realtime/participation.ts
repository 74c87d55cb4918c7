import type { AppDeps } from '../deps';
import type { WorkshopAction, WorkshopEvent } from '../modules/events/changes';
import { participationOf } from '../modules/participation/service';
import { roleRoom } from './rooms';
import type { RealtimeServer } from './server-types';

/** At most one `participation:changed` per workshop in this window (CONTRACT §9). */
const WINDOW_MS = 1_000;

/** Logged changes after which the participation counts may read differently. */
const AFFECTING: ReadonlySet<WorkshopAction> = new Set<WorkshopAction>([
  'addVote', 'updateVote', 'removeVote', 'removeVotes',
  'addRating', 'updateRating', 'removeRating', 'removeRatings',
  'addMember', 'updateMember', 'removeCard', 'mergeCards', 'importCards',
  'changeStep',
]);

/** Whether the change may move the counts: a workshop update only when it changed the vote limits. */
function affects(event: WorkshopEvent): boolean {
  if (event.action === 'updateWorkshop') return 'vote_limit' in event.change.changes;
  return AFFECTING.has(event.action);
}

/**
 * Sends `participation:changed` after changes that move the counts: at once for the first change,
 * then at most once a second with the latest counts (a burst of votes makes one event at the end of
 * each second). Counts go to participants, counts with names to facilitators; no `seq`, since it
 * is derived state, not a logged change. Returns the stop function.
 */
export function announceParticipation(deps: AppDeps, io: RealtimeServer): () => void {
  const windows = new Map<string, { timer: NodeJS.Timeout; pending: boolean }>();

  const send = (workshopId: string) => {
    participationOf(deps.database.db, workshopId, true)
      .then((withNames) => {
        const { users: _names, ...counts } = withNames;
        io.to(roleRoom(workshopId, 'facilitator')).emit('participation:changed', { workshop_id: workshopId, ...withNames });
        io.to(roleRoom(workshopId, 'participant')).emit('participation:changed', { workshop_id: workshopId, ...counts });
      })
      .catch((err) => console.error('[realtime] participation failed', err));
  };

  const open = (workshopId: string) => {
    const timer = setTimeout(() => {
      const window = windows.get(workshopId);
      windows.delete(workshopId);
      if (window?.pending) {
        send(workshopId);
        open(workshopId);
      }
    }, WINDOW_MS);
    timer.unref();
    windows.set(workshopId, { timer, pending: false });
  };

  const onWorkshop = (event: WorkshopEvent) => {
    if (event.action === 'removeWorkshop') {
      clearTimeout(windows.get(event.workshopId)?.timer);
      windows.delete(event.workshopId);
      return;
    }
    if (!affects(event)) return;
    const window = windows.get(event.workshopId);
    if (window) {
      window.pending = true;
      return;
    }
    send(event.workshopId);
    open(event.workshopId);
  };
  deps.bus.on('workshop', onWorkshop);
  return () => {
    deps.bus.off('workshop', onWorkshop);
    for (const { timer } of windows.values()) clearTimeout(timer);
    windows.clear();
  };
}
