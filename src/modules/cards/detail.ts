import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { toCriterion, type CriterionOutput } from '../../domain/criteria';
import { toItem } from '../items/schemas';
import { type ItemOutput } from '../../domain/items';
import { toRating } from '../ratings/schemas';
import { type RatingOutput } from '../../domain/ratings';
import { toSection } from '../../domain/sections';
import { seesAllRatings } from '../access/rules';
import { type WorkshopAccess } from '../../domain/permissions';
import { authorFor, type Reader } from '../access/visibility';
import type { CardSectionOutput } from './schemas';
import { creationOrder } from '../../db/creation-order';

const queries = preparedPerDb((db: Db) => {
  const { criteria, items, ratings, sections } = tablesOf(db);
  const workshopId = sql.placeholder('workshopId');
  const cardId = sql.placeholder('cardId');
  return {
    sections: named(
      db
        .select()
        .from(sections)
        .where(eq(sections.workshopId, workshopId))
        .orderBy(asc(sections.position), asc(sections.id)),
      'cards_detail_sections',
    ),
    criteria: named(
      db
        .select()
        .from(criteria)
        .where(eq(criteria.workshopId, workshopId))
        .orderBy(asc(criteria.position), asc(criteria.id)),
      'cards_detail_criteria',
    ),
    items: named(
      db
        .select()
        .from(items)
        .where(eq(items.cardId, cardId))
        .orderBy(asc(items.createdAt), asc(creationOrder(items))),
      'cards_detail_items',
    ),
    ratings: named(
      db
        .select()
        .from(ratings)
        .where(eq(ratings.cardId, cardId))
        .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings))),
      'cards_detail_ratings',
    ),
    ownRatings: named(
      db
        .select()
        .from(ratings)
        .where(and(eq(ratings.cardId, cardId), eq(ratings.userId, sql.placeholder('userId'))))
        .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings))),
      'cards_detail_own_ratings',
    ),
  };
});

/** Every section of the workshop, in order, each with this card's items in it, their authors as `reader` may see them. */
export async function cardSections(
  db: Db,
  workshopId: string,
  cardId: string,
  reader: Reader,
): Promise<CardSectionOutput[]> {
  const q = queries(db);
  const bySection = new Map<string, ItemOutput[]>();
  for (const row of await q.items.execute({ cardId })) {
    const item = authorFor(reader, toItem(row));
    const list = bySection.get(row.sectionId);
    if (list) list.push(item);
    else bySection.set(row.sectionId, [item]);
  }
  return (await q.sections.execute({ workshopId })).map((row) => ({
    ...toSection(row),
    items: bySection.get(row.id) ?? [],
  }));
}

/**
 * Every criterion of the workshop, in order, each with this card's ratings on it: everyone's, or
 * only the caller's when the current step hides other people's ratings.
 */
export async function cardCriteria(db: Db, access: WorkshopAccess, cardId: string): Promise<CriterionOutput[]> {
  const q = queries(db);
  const ratingRows = seesAllRatings(access)
    ? await q.ratings.execute({ cardId })
    : await q.ownRatings.execute({ cardId, userId: access.userId });
  const byCriterion = new Map<string, RatingOutput[]>();
  for (const row of ratingRows) {
    const list = byCriterion.get(row.criteriumId);
    if (list) list.push(toRating(row));
    else byCriterion.set(row.criteriumId, [toRating(row)]);
  }
  return (await q.criteria.execute({ workshopId: access.workshop.id })).map((row) =>
    toCriterion(row, byCriterion.get(row.id) ?? []),
  );
}
