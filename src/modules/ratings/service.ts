import { nowIso } from '../../db/columns';
import { isUniqueViolation } from '../../db/errors';
import { AppError, invalid, notFound } from '../../http/errors';
import { SCALES } from '../../domain/criteria';
import { writeWorkshop, type WriteDeps } from '../../db/write';
import { diffFields } from '../../domain/events';
import { loadTarget } from '../access/feedback-target';
import type { CardRef } from '../../domain/card-ref';
import { authorize, seesAllRatings } from '../access/rules';
import type { WorkshopAccess } from '../../domain/permissions';
import {
  deleteRating,
  findCriterionScale,
  findRating,
  findUserRating,
  insertRating,
  listRatings as listRatingRows,
  updateRatingValue,
} from './repo';
import { toRating, type RatingRow } from './schemas';
import { withDeletedVotersHidden } from '../users/repo';
import type { RatingOutput } from '../../domain/ratings';
import { msg } from '../../i18n/messages';

/** A participant who may not see all ratings sees only their own, as if the others did not exist. */
function visible(access: WorkshopAccess, row: RatingRow | undefined): RatingRow {
  if (!row || (!seesAllRatings(access) && row.userId !== access.userId)) throw notFound('rating');
  return row;
}

function requireOnScale(scale: number, value: number): void {
  const allowed = SCALES[scale] ?? [];
  if (!allowed.includes(value)) throw invalid('value', msg('error.ratings.off_scale', { values: allowed.join(', ') }));
}

const alreadyRated = () => new AppError('already_rated', msg('error.ratings.already_rated'));

export async function listRatings(
  deps: WriteDeps,
  ref: CardRef,
  query: { criterium_id?: string | undefined },
): Promise<RatingOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  const userId = seesAllRatings(access) ? undefined : access.userId;
  const { db } = deps.database;
  return withDeletedVotersHidden(
    db,
    (await listRatingRows(db, card.id, { criteriumId: query.criterium_id, userId })).map(toRating),
  );
}

export async function getRating(deps: WriteDeps, ref: CardRef, ratingId: string): Promise<RatingOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  const [rating] = await withDeletedVotersHidden(deps.database.db, [
    toRating(visible(access, await findRating(deps.database.db, card.id, ratingId))),
  ]);
  return rating!;
}

export function rateCard(
  deps: WriteDeps,
  ref: CardRef,
  input: { value: number; criterium_id: string },
): Promise<RatingOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    authorize(access, 'rate');
    const scale = await findCriterionScale(tx, ref.workshopId, input.criterium_id);
    if (scale === undefined) throw invalid('criterium_id', msg('error.ratings.unknown_criterion'));
    requireOnScale(scale, input.value);
    const key = { cardId: card.id, criteriumId: input.criterium_id, userId: ref.caller.id };
    if (await findUserRating(tx, key)) throw alreadyRated();
    const row = await insertUnique(() => insertRating(tx, { ...key, workshopId: ref.workshopId, value: input.value }));
    const rating = toRating(row);
    changes.record({
      workshopId: ref.workshopId,
      action: 'addRating',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { rating },
    });
    return rating;
  });
}

export function changeRating(
  deps: WriteDeps,
  ref: CardRef,
  ratingId: string,
  input: { value?: number | undefined },
): Promise<RatingOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const before = visible(access, await findRating(tx, card.id, ratingId));
    authorize(access, 'rate');
    authorize(access, { manage_feedback: { authorId: before.userId } });
    if (input.value === undefined || input.value === before.value) return toRating(before);
    requireOnScale((await findCriterionScale(tx, ref.workshopId, before.criteriumId)) ?? 0, input.value);
    const rating = toRating(await updateRatingValue(tx, before.id, input.value, nowIso()));
    changes.record({
      workshopId: ref.workshopId,
      action: 'updateRating',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { rating, changes: diffFields(toRating(before), rating, ['value']) },
    });
    return rating;
  });
}

export async function removeRating(deps: WriteDeps, ref: CardRef, ratingId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const row = visible(access, await findRating(tx, card.id, ratingId));
    authorize(access, 'rate');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    await deleteRating(tx, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeRating',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { rating: toRating(row) },
    });
  });
}

/** The unique index is the last word on "one rating per user, card and criterion". */
async function insertUnique(insert: () => Promise<RatingRow>): Promise<RatingRow> {
  try {
    return await insert();
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyRated();
    throw err;
  }
}
