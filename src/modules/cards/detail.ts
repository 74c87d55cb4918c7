import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { criteria, items, ratings, sections } from '../../db/schema/index';
import { toCriterion, type CriterionOutput } from '../criteria/schemas';
import { toItem, type ItemOutput } from '../items/schemas';
import { toRating, type RatingOutput } from '../ratings/schemas';
import { toSection } from '../sections/schemas';
import { seesAllRatings, type WorkshopAccess } from '../access/rules';
import type { CardSectionOutput } from './schemas';

const queries = preparedPerDb((db: Db) => {
  const workshopId = sql.placeholder('workshopId');
  const cardId = sql.placeholder('cardId');
  return {
    sections: db.select().from(sections).where(eq(sections.workshopId, workshopId)).orderBy(asc(sections.position), asc(sections.id)).prepare(),
    criteria: db.select().from(criteria).where(eq(criteria.workshopId, workshopId)).orderBy(asc(criteria.position), asc(criteria.id)).prepare(),
    items: db.select().from(items).where(eq(items.cardId, cardId)).orderBy(asc(items.createdAt), asc(sql`${items}.rowid`)).prepare(),
    ratings: db
      .select()
      .from(ratings)
      .where(and(eq(ratings.cardId, cardId), sql`(${sql.placeholder('userId')} IS NULL OR ${ratings.userId} = ${sql.placeholder('userId')})`))
      .orderBy(asc(ratings.createdAt), asc(sql`${ratings}.rowid`))
      .prepare(),
  };
});

/** Every section of the workshop, in order, each with this card's items in it. */
export function cardSections(db: Db, workshopId: string, cardId: string): CardSectionOutput[] {
  const q = queries(db);
  const bySection = new Map<string, ItemOutput[]>();
  for (const row of q.items.all({ cardId })) {
    const list = bySection.get(row.sectionId);
    if (list) list.push(toItem(row));
    else bySection.set(row.sectionId, [toItem(row)]);
  }
  return q.sections.all({ workshopId }).map((row) => ({ ...toSection(row), items: bySection.get(row.id) ?? [] }));
}

/**
 * Every criterion of the workshop, in order, each with this card's ratings on it: everyone's, or
 * only the caller's when the current step hides other people's ratings.
 */
export function cardCriteria(db: Db, access: WorkshopAccess, cardId: string): CriterionOutput[] {
  const q = queries(db);
  const userId = seesAllRatings(access) ? null : access.userId;
  const byCriterion = new Map<string, RatingOutput[]>();
  for (const row of q.ratings.all({ cardId, userId })) {
    const list = byCriterion.get(row.criteriumId);
    if (list) list.push(toRating(row));
    else byCriterion.set(row.criteriumId, [toRating(row)]);
  }
  return q.criteria.all({ workshopId: access.workshop.id }).map((row) => toCriterion(row, byCriterion.get(row.id) ?? []));
}
