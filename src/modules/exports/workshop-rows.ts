import { asc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { canvases, cards, comments, criteria, items, ratings, sections, steps, votes, workshops, zones } from '../../db/schema/index';

/**
 * Every row of a workshop an export shows, in the order the exports list them: the agenda and
 * the workshop's criteria and sections by position, feedback oldest first, zones in canvas order.
 * Call it inside a read transaction so the rows are one moment of the workshop.
 */
export function readWorkshopRows(tx: Db | Tx, workshopId: string) {
  const workshop = tx.select().from(workshops).where(eq(workshops.id, workshopId)).get();
  if (!workshop) return null;
  const canvas = tx.select().from(canvases).where(eq(canvases.workshopId, workshopId)).get() ?? null;
  return {
    workshop,
    steps: tx.select().from(steps).where(eq(steps.workshopId, workshopId)).orderBy(asc(steps.position)).all(),
    criteria: tx.select().from(criteria).where(eq(criteria.workshopId, workshopId)).orderBy(asc(criteria.position)).all(),
    sections: tx.select().from(sections).where(eq(sections.workshopId, workshopId)).orderBy(asc(sections.position)).all(),
    cards: tx.select().from(cards).where(eq(cards.workshopId, workshopId)).orderBy(asc(cards.position), asc(cards.number)).all(),
    votes: tx.select().from(votes).where(eq(votes.workshopId, workshopId)).orderBy(asc(votes.createdAt), asc(votes.id)).all(),
    ratings: tx.select().from(ratings).where(eq(ratings.workshopId, workshopId)).orderBy(asc(ratings.createdAt), asc(ratings.id)).all(),
    items: tx.select().from(items).where(eq(items.workshopId, workshopId)).orderBy(asc(items.createdAt), asc(items.id)).all(),
    comments: tx.select().from(comments).where(eq(comments.workshopId, workshopId)).orderBy(asc(comments.createdAt), asc(comments.id)).all(),
    canvas,
    zones: canvas ? tx.select().from(zones).where(eq(zones.canvasId, canvas.id)).orderBy(asc(zones.position), asc(zones.createdAt)).all() : [],
  };
}
