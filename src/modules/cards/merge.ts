import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { newId } from '../../db/columns';
import { AppError, invalid } from '../../http/errors';
import { writeWorkshop } from '../../db/write';
import { authorize } from '../access/rules';
import { loadAccess, type LoadedAccess } from '../access/load';
import { authorVisibilityNow, mostHidden, privateAuthorsAmong, seesCard, VisibilityMemo } from '../access/visibility';
import { StackPlan } from './placements';
import { findCard, nextCardNumber } from './repo';
import {
  cardsAmong,
  deleteCards,
  ideaIdsByPosition,
  insertMergedCard,
  moveFeedbackOnto,
  setParent,
} from './merge-repo';
import type { CardRow, MergeCardsInput } from './schemas';
import type { CardOutput } from '../../domain/cards';
import { relinkZones } from '../canvas/zones';
import { unhookViewReferences } from '../workshops/view-references';
import { cardFor, cardForEvent, type WorkshopRef } from './service';
import { msg } from '../../i18n/messages';

/**
 * Merges cards into a new one (docs/api.md#cards): it takes the first card's type, parent and place;
 * the feedback of every merged card moves onto it (one rating per user and criterion, the latest
 * kept); ideas of merged clusters move under it, or under its cluster when it is an idea; the
 * merged cards are deleted. One transaction: all or nothing.
 */
export function mergeCards(deps: AppDeps, ref: WorkshopRef, input: MergeCardsInput): Promise<CardOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, ref.workshopId, ref.caller);
    const memo = new VisibilityMemo();
    const merged = await listedCards(tx, access, input.cards_id, memo);
    const first = merged[0]!;
    authorize(access, first.type === 'cluster' ? 'add_cluster' : 'add_idea');
    for (const card of merged) authorize(access, { delete_card: { authorId: card.userId } });
    const owner = await mergedCardOwner(tx, access, merged, memo);

    const mergedIds = new Set(merged.map((card) => card.id));
    const parentId = first.type === 'idea' ? first.parentId : null;
    if (parentId !== null && mergedIds.has(parentId)) {
      throw invalid('cards_id', msg('error.cards.merge_idea_before_cluster'));
    }

    // The new card takes the first card's place among the siblings that remain. Positions are
    // planned here and written by the workshop's document, with the SQL copy, at the end.
    const plan = new StackPlan(tx, ref.workshopId);
    const siblings = await plan.ids(parentId);
    const place = siblings.slice(0, Math.max(0, siblings.indexOf(first.id))).filter((id) => !mergedIds.has(id)).length;
    for (const card of merged) await plan.remove(card.parentId, card.id);
    const id = newId();
    await plan.insert(parentId, id, place);

    await insertMergedCard(tx, {
      id,
      workshopId: ref.workshopId,
      number: await nextCardNumber(tx, ref.workshopId),
      type: first.type,
      title: input.title ?? first.title,
      content: input.content ?? first.content,
      color: first.type === 'cluster' ? first.color : null,
      aside: first.aside,
      parentId,
      position: place,
      userId: owner,
      // Text written anonymously stays so in what it was merged into.
      authorVisibility: mostHidden([authorVisibilityNow(access), ...merged.map((card) => card.authorVisibility)]),
    });

    const sourceIds = [...mergedIds];
    await moveFeedbackOnto(tx, sourceIds, id);
    await adoptIdeas(tx, plan, merged, mergedIds, first.type === 'cluster' ? id : parentId!);
    await deleteCards(tx, sourceIds);
    // The stacks the merged cards left close their gaps; the document drops the merged cards.
    plan.delete(mergedIds);
    await plan.commit(deps, tx, changes);

    const row = await findCard(tx, ref.workshopId, id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'mergeCards',
      userId: ref.caller.id,
      change: { card: await cardForEvent(tx, row), merged_ids: sourceIds },
    });
    await unhookViewReferences(deps, tx, changes, ref, { cardIds: sourceIds });
    // Zones linked to a merged cluster follow it into the new cluster.
    await relinkZones(deps, { tx, changes }, { ...ref, from: sourceIds, to: first.type === 'cluster' ? id : null });
    return cardFor(tx, access, row);
  });
}

/**
 * The listed cards of the workshop, in the order listed, read in one statement; a 400 names the
 * first id that is not one of them, or names a card hidden from the caller
 * (docs/api.md#private-writing-and-anonymous-authors: it reads as one that does not exist).
 */
async function listedCards(
  tx: Db,
  access: LoadedAccess,
  ids: readonly string[],
  memo: VisibilityMemo,
): Promise<CardRow[]> {
  const rows = await cardsAmong(tx, access.workshop.id, ids);
  const byId = new Map<string, CardRow>();
  for (const row of rows) if (await seesCard(tx, access, row.userId, memo)) byId.set(row.id, row);
  const missing = ids.findIndex((id) => !byId.has(id));
  if (missing !== -1) throw invalid(`cards_id.${missing}`, msg('error.cards.not_in_workshop'));
  return ids.map((id) => byId.get(id)!);
}

/**
 * Whose the merged card is: whoever merges, unless a private step hides some of the merged cards
 * from other participants (docs/api.md#private-writing-and-anonymous-authors). Then the new card,
 * which takes their text and feedback, stays as private as they were: it is their author's, and
 * cards of several such authors cannot be merged until they are revealed (a facilitator grouping
 * duplicates would otherwise show each author's writing to the others).
 */
async function mergedCardOwner(
  tx: Db,
  access: LoadedAccess,
  merged: readonly CardRow[],
  memo: VisibilityMemo,
): Promise<string> {
  const hidden = await privateAuthorsAmong(
    tx,
    access,
    merged.map((card) => card.userId),
    memo,
  );
  if (hidden.size === 0) return access.userId;
  if (hidden.size > 1) {
    throw new AppError('conflict', msg('error.cards.merge_private'));
  }
  return [...hidden][0]!;
}

/**
 * Ideas of merged clusters that are not merged themselves move to the end of `newParentId`'s stack,
 * cluster by cluster in the order the clusters were listed (their positions through `plan`).
 */
async function adoptIdeas(
  tx: Db,
  plan: StackPlan,
  merged: CardRow[],
  mergedIds: ReadonlySet<string>,
  newParentId: string,
): Promise<void> {
  for (const cluster of merged) {
    if (cluster.type !== 'cluster') continue;
    for (const ideaId of await ideaIdsByPosition(tx, cluster.workshopId, cluster.id)) {
      if (mergedIds.has(ideaId)) continue;
      await plan.move(cluster.id, newParentId, ideaId);
      await setParent(tx, ideaId, newParentId);
    }
  }
}
