import type { Db } from '../db/database';
import type { WorkshopEvent, WorkshopAction } from '../modules/events/changes';
import type { Delivery } from './audience';
import { RENDERERS, type Renderers } from './renderers';

/**
 * Turns one logged change into the socket events it produces, each with its audience, through
 * the renderer of its action (`renderers.ts`). Live broadcasts and resume replays both go through
 * here, so a replayed event reads exactly as the live one would now.
 */
export async function deliveriesFor<A extends WorkshopAction>(db: Db, event: WorkshopEvent<A>): Promise<Delivery[]> {
  const renderer: Renderers[A] = RENDERERS[event.action];
  return renderer(event, db);
}
