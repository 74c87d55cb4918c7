import { and, asc, eq } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import type { RatingRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

/** A card's ratings in the order they were given, optionally of one criterion and one user. */
export function listRatings(
  db: Db,
  cardId: string,
  filter: { criteriumId?: string | undefined; userId?: string | undefined },
): Promise<RatingRow[]> {
  const { ratings } = tablesOf(db);
  return db
    .select()
    .from(ratings)
    .where(
      and(
        eq(ratings.cardId, cardId),
        filter.criteriumId === undefined ? undefined : eq(ratings.criteriumId, filter.criteriumId),
        filter.userId === undefined ? undefined : eq(ratings.userId, filter.userId),
      ),
    )
    .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings)));
}

export async function findRating(db: Db, cardId: string, id: string): Promise<RatingRow | undefined> {
  const { ratings } = tablesOf(db);
  const [row] = await db
    .select()
    .from(ratings)
    .where(and(eq(ratings.id, id), eq(ratings.cardId, cardId)));
  return row;
}

export async function findUserRating(
  db: Db,
  q: { cardId: string; criteriumId: string; userId: string },
): Promise<RatingRow | undefined> {
  const { ratings } = tablesOf(db);
  const [row] = await db
    .select()
    .from(ratings)
    .where(and(eq(ratings.cardId, q.cardId), eq(ratings.criteriumId, q.criteriumId), eq(ratings.userId, q.userId)));
  return row;
}

export async function findCriterionScale(db: Db, workshopId: string, criteriumId: string): Promise<number | undefined> {
  const { criteria } = tablesOf(db);
  const [row] = await db
    .select({ scale: criteria.scale })
    .from(criteria)
    .where(and(eq(criteria.id, criteriumId), eq(criteria.workshopId, workshopId)));
  return row?.scale;
}

export async function insertRating(db: Db, values: Schema['ratings']['$inferInsert']): Promise<RatingRow> {
  const { ratings } = tablesOf(db);
  const [row] = await db.insert(ratings).values(values).returning();
  return row!;
}

export async function updateRatingValue(db: Db, id: string, value: number, now: string): Promise<RatingRow> {
  const { ratings } = tablesOf(db);
  const [row] = await db.update(ratings).set({ value, updatedAt: now }).where(eq(ratings.id, id)).returning();
  return row!;
}

export async function deleteRating(db: Db, id: string): Promise<void> {
  const { ratings } = tablesOf(db);
  await db.delete(ratings).where(eq(ratings.id, id));
}
