import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { criteria, ratings } from '../../db/schema/index';
import type { RatingRow } from './schemas';

/** A card's ratings in the order they were given, optionally of one criterion and one user. */
export function listRatings(db: Db, cardId: string, filter: { criteriumId?: string | undefined; userId?: string | undefined }): RatingRow[] {
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
    .orderBy(asc(ratings.createdAt), asc(sql`rowid`))
    .all();
}

export function findRating(db: Db, cardId: string, id: string): RatingRow | undefined {
  return db.select().from(ratings).where(and(eq(ratings.id, id), eq(ratings.cardId, cardId))).get();
}

export function findUserRating(db: Db, q: { cardId: string; criteriumId: string; userId: string }): RatingRow | undefined {
  return db
    .select()
    .from(ratings)
    .where(and(eq(ratings.cardId, q.cardId), eq(ratings.criteriumId, q.criteriumId), eq(ratings.userId, q.userId)))
    .get();
}

export function findCriterionScale(db: Db, workshopId: string, criteriumId: string): number | undefined {
  return db
    .select({ scale: criteria.scale })
    .from(criteria)
    .where(and(eq(criteria.id, criteriumId), eq(criteria.workshopId, workshopId)))
    .get()?.scale;
}

export function insertRating(db: Db, values: typeof ratings.$inferInsert): RatingRow {
  return db.insert(ratings).values(values).returning().get();
}

export function updateRatingValue(db: Db, id: string, value: number, now: string): RatingRow {
  return db.update(ratings).set({ value, updatedAt: now }).where(eq(ratings.id, id)).returning().get()!;
}

export function deleteRating(db: Db, id: string): void {
  db.delete(ratings).where(eq(ratings.id, id)).run();
}
