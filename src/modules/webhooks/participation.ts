import type { AppDeps } from '../../deps';
import { writeWorkshop } from '../../db/write';
import type { WorkshopAction, WorkshopEvent } from '../../domain/events';
import { participationOf } from '../participation/service';
import { organizationOwning } from '../organizations/repo';
import { queueEventOnce } from './outbox';

/** Changes after which every participant may have voted. */
const VOTING: ReadonlySet<WorkshopAction> = new Set<WorkshopAction>(['addVote', 'updateVote', 'changeStep']);
/** A burst of votes is looked at once, this long after its first. */
const SETTLE_MS = 250;

/**
 * Queues `participation.completed` (docs/integrations.md#events) once per workshop and step, when
 * every participant has voted: read after the votes of this instance commit (the counts are derived
 * state, not a logged change), and written once whichever instance reads them first, since the
 * delivery's id is made from the workshop and step. Only organizations' workshops are read.
 * Returns the stop function.
 */
export function watchParticipation(deps: AppDeps): () => void {
  const waiting = new Map<string, NodeJS.Timeout>();

  const check = async (workshopId: string) => {
    waiting.delete(workshopId);
    const { db } = deps.database;
    if (!(await organizationOwning(db, workshopId))) return;
    const counts = await participationOf(db, workshopId, false);
    if (counts.participants === 0 || counts.voted_any < counts.participants) return;
    await writeWorkshop(deps, workshopId, async (tx, changes) => {
      const event = {
        type: 'participation.completed' as const,
        workshopId,
        ownerId: null,
        data: { workshop_id: workshopId, participation: counts },
      };
      if (await queueEventOnce(tx, event, `participation.completed\n${workshopId}\n${counts.step_id ?? ''}`))
        deps.changeOutbox.queuedBy(changes);
    });
  };

  const onWorkshop = (event: WorkshopEvent) => {
    if (!VOTING.has(event.action) || waiting.has(event.workshopId)) return;
    const timer = setTimeout(
      () => void check(event.workshopId).catch((err) => console.error('[webhooks] participation check failed', err)),
      SETTLE_MS,
    );
    timer.unref();
    waiting.set(event.workshopId, timer);
  };
  deps.bus.on('workshop', onWorkshop);
  return () => {
    deps.bus.off('workshop', onWorkshop);
    for (const timer of waiting.values()) clearTimeout(timer);
    waiting.clear();
  };
}
