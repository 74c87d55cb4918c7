import type { AppDeps } from '../deps';
import type { WorkshopAction, WorkshopEvent } from '../domain/events';
import { participationOf } from '../modules/participation/service';
import { roleRoom } from './rooms';
import type { RealtimeServer } from './server-types';

/** Logged changes after which the participation counts may read differently. */
const AFFECTING: ReadonlySet<WorkshopAction> = new Set<WorkshopAction>([
  'addVote',
  'updateVote',
  'removeVote',
  'removeVotes',
  'addRating',
  'updateRating',
  'removeRating',
  'removeRatings',
  'addMember',
  'updateMember',
  'removeUser',
  'removeCard',
  'mergeCards',
  'importCards',
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
 * each second). The second is a slot per workshop taken from the limits' shared counters (Redis,
 * or the database), so the instances together send one event a second, not one each, and never
 * two readings close enough to arrive out of order. A change that finds the slot taken waits for
 * the next one, and the counts are read when it is sent. Counts go to participants, counts with
 * names to facilitators; no `seq`, since it is derived state, not a logged change. Returns the
 * stop function.
 */
export function announceParticipation(deps: AppDeps, io: RealtimeServer): () => void {
  const slots = deps.attempts.limiter({ name: 'participation', points: 1, windowS: 1 });
  /** Workshops with a send on its way on this instance: taking the slot (null), or waiting for the next one. */
  const pending = new Map<string, NodeJS.Timeout | null>();

  const send = (workshopId: string) =>
    participationOf(deps.database.db, workshopId, true).then((withNames) => {
      const { users: _names, ...counts } = withNames;
      io.to(roleRoom(workshopId, 'facilitator')).emit('participation:changed', {
        workshop_id: workshopId,
        ...withNames,
      });
      io.to(roleRoom(workshopId, 'participant')).emit('participation:changed', { workshop_id: workshopId, ...counts });
    });

  const attempt = (workshopId: string) => {
    pending.set(workshopId, null);
    slots
      .take(workshopId)
      .then((wait) => {
        // Stopped, or the workshop deleted, meanwhile.
        if (pending.get(workshopId) !== null) return;
        if (wait === null) {
          pending.delete(workshopId);
          return send(workshopId);
        }
        const timer = setTimeout(() => attempt(workshopId), wait * 1000);
        timer.unref();
        pending.set(workshopId, timer);
      })
      .catch((err) => {
        pending.delete(workshopId);
        console.error('[realtime] participation failed', err);
      });
  };

  const forget = (workshopId: string) => {
    clearTimeout(pending.get(workshopId) ?? undefined);
    pending.delete(workshopId);
  };

  const onWorkshop = (event: WorkshopEvent) => {
    if (event.action === 'removeWorkshop') return forget(event.workshopId);
    // A send on its way reads the counts this change moved.
    if (affects(event) && !pending.has(event.workshopId)) attempt(event.workshopId);
  };
  deps.bus.on('workshop', onWorkshop);
  return () => {
    deps.bus.off('workshop', onWorkshop);
    for (const workshopId of [...pending.keys()]) forget(workshopId);
  };
}
