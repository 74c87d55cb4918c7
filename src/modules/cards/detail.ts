import type { Db } from '../../db/database';
import { toCriterion, type CriterionOutput } from '../../domain/criteria';
import { toItem } from '../items/schemas';
import { type ItemOutput } from '../../domain/items';
import { toRating } from '../ratings/schemas';
import { withDeletedVotersHidden } from '../users/repo';
import { type RatingOutput } from '../../domain/ratings';
import { toSection } from '../../domain/sections';
import { seesAllRatings } from '../access/rules';
import { type WorkshopAccess } from '../../domain/permissions';
import { authorFor, type Reader } from '../access/visibility';
import type { CardSectionOutput } from './schemas';
import { criteriaInOrder, itemsOfCard, ratingsOfCard, sectionsInOrder } from './feedback-repo';

/** Every section of the workshop, in order, each with this card's items in it, their authors as `reader` may see them. */
export async function cardSections(
  db: Db,
  workshopId: string,
  cardId: string,
  reader: Reader,
): Promise<CardSectionOutput[]> {
  const bySection = new Map<string, ItemOutput[]>();
  for (const row of await itemsOfCard(db, cardId)) {
    const item = authorFor(reader, toItem(row));
    const list = bySection.get(row.sectionId);
    if (list) list.push(item);
    else bySection.set(row.sectionId, [item]);
  }
  return (await sectionsInOrder(db, workshopId)).map((row) => ({
    ...toSection(row),
    items: bySection.get(row.id) ?? [],
  }));
}

/**
 * Every criterion of the workshop, in order, each with this card's ratings on it: everyone's, or
 * only the caller's when the current step hides other people's ratings.
 */
export async function cardCriteria(db: Db, access: WorkshopAccess, cardId: string): Promise<CriterionOutput[]> {
  const ratingRows = await ratingsOfCard(db, cardId, seesAllRatings(access) ? undefined : access.userId);
  const ratings = await withDeletedVotersHidden(db, ratingRows.map(toRating));
  const byCriterion = new Map<string, RatingOutput[]>();
  for (const rating of ratings) {
    const list = byCriterion.get(rating.criterium_id);
    if (list) list.push(rating);
    else byCriterion.set(rating.criterium_id, [rating]);
  }
  return (await criteriaInOrder(db, access.workshop.id)).map((row) => toCriterion(row, byCriterion.get(row.id) ?? []));
}
