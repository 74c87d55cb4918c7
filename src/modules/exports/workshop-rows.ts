import { asc, eq } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import type { AuthorVisibility } from '../../domain/permissions';
import { readerWhoWroteNothing, seesAuthor, type Reader } from '../access/visibility';

/**
 * Who reads an export (docs/api.md#private-writing-and-anonymous-authors): a facilitator who wrote
 * none of it. The file is downloaded through a link that needs no token and can be passed on, so
 * even the facilitator who asked for it does not find their own name on what was written
 * anonymously: at `hidden_from_participants` an export names the author, at `hidden` none does.
 */
const EXPORT_READER: Reader = readerWhoWroteNothing('facilitator');

/** Whether an export may name the author of this card, comment or item. */
export function exportNamesAuthor(row: { userId: string; authorVisibility: AuthorVisibility }): boolean {
  return seesAuthor(EXPORT_READER, row.userId, row.authorVisibility);
}

/**
 * Every row of a workshop an export shows, in the order the exports list them: the agenda and
 * the workshop's criteria and sections by position, feedback oldest first, zones in canvas order.
 * Call it on a snapshot (`Database.snapshot`) so the rows are one moment of the workshop.
 */
export async function readWorkshopRows(db: Db, workshopId: string) {
  const { canvases, cards, comments, criteria, items, ratings, sections, steps, votes, workshops, zones } =
    tablesOf(db);
  const [workshop] = await db.select().from(workshops).where(eq(workshops.id, workshopId));
  if (!workshop) return null;
  const [canvas = null] = await db.select().from(canvases).where(eq(canvases.workshopId, workshopId));
  return {
    workshop,
    steps: await db.select().from(steps).where(eq(steps.workshopId, workshopId)).orderBy(asc(steps.position)),
    criteria: await db
      .select()
      .from(criteria)
      .where(eq(criteria.workshopId, workshopId))
      .orderBy(asc(criteria.position)),
    sections: await db
      .select()
      .from(sections)
      .where(eq(sections.workshopId, workshopId))
      .orderBy(asc(sections.position)),
    cards: await db
      .select()
      .from(cards)
      .where(eq(cards.workshopId, workshopId))
      .orderBy(asc(cards.position), asc(cards.number)),
    votes: await db
      .select()
      .from(votes)
      .where(eq(votes.workshopId, workshopId))
      .orderBy(asc(votes.createdAt), asc(votes.id)),
    ratings: await db
      .select()
      .from(ratings)
      .where(eq(ratings.workshopId, workshopId))
      .orderBy(asc(ratings.createdAt), asc(ratings.id)),
    items: await db
      .select()
      .from(items)
      .where(eq(items.workshopId, workshopId))
      .orderBy(asc(items.createdAt), asc(items.id)),
    comments: await db
      .select()
      .from(comments)
      .where(eq(comments.workshopId, workshopId))
      .orderBy(asc(comments.createdAt), asc(comments.id)),
    canvas,
    zones: canvas
      ? await db
          .select()
          .from(zones)
          .where(eq(zones.canvasId, canvas.id))
          .orderBy(asc(zones.position), asc(zones.createdAt))
      : [],
  };
}
