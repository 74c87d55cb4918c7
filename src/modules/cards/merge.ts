import { and, asc, eq, sql, type Column } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { tablesOf, type Db } from '../../db/database';
import { newId } from '../../db/columns';
import { execute, inList } from '../../db/sql';
import { AppError, invalid } from '../../http/errors';
import { writeWorkshop } from '../../db/write';
import { authorize } from '../access/rules';
import { loadAccess, type LoadedAccess } from '../access/load';
import { authorVisibilityNow, mostHidden, privateAuthorsAmong, seesCard, VisibilityMemo } from '../access/visibility';
import { StackPlan } from './placements';
import { findCard, nextCardNumber } from './repo';
import type { CardRow, MergeCardsInput } from './schemas';
import type { CardOutput } from '../../domain/cards';
import { relinkZones } from '../canvas/zones';
import { unhookViewReferences } from '../workshops/view-references';
import { cardFor, cardForEvent, type WorkshopRef } from './service';
import { CREATION_ORDER_COLUMN } from '../../db/creation-order';

/**
 * Merges cards into a new one (docs/api.md#cards): it takes the first card's type, parent and place;
 * the feedback of every merged card moves onto it (one rating per user and criterion, the latest
 * kept); ideas of merged clusters move under it, or under its cluster when it is an idea; the
 * merged cards are deleted. One transaction: all or nothing.
 */
export function mergeCards(deps: AppDeps, ref: WorkshopRef, input: MergeCardsInput): Promise<CardOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { cards } = tablesOf(tx);
    const access = await loadAccess(tx, ref.workshopId, ref.userId);
    const memo = new VisibilityMemo();
    const merged = await listedCards(tx, access, input.cards_id, memo);
    const first = merged[0]!;
    authorize(access, first.type === 'cluster' ? 'add_cluster' : 'add_idea');
    for (const card of merged) authorize(access, { delete_card: { authorId: card.userId } });
    const owner = await mergedCardOwner(tx, access, merged, memo);

    const mergedIds = new Set(merged.map((card) => card.id));
    const parentId = first.type === 'idea' ? first.parentId : null;
    if (parentId !== null && mergedIds.has(parentId)) {
      throw invalid('cards_id', 'An idea listed first cannot be merged with its own cluster; list the cluster first.');
    }

    // The new card takes the first card's place among the siblings that remain. Positions are
    // planned here and written by the workshop's document, with the SQL copy, at the end.
    const plan = new StackPlan(tx, ref.workshopId);
    const siblings = await plan.ids(parentId);
    const place = siblings.slice(0, Math.max(0, siblings.indexOf(first.id))).filter((id) => !mergedIds.has(id)).length;
    for (const card of merged) await plan.remove(card.parentId, card.id);
    const id = newId();
    await plan.insert(parentId, id, place);

    await tx.insert(cards).values({
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
    await moveFeedback(tx, sourceIds, id);
    await adoptIdeas(tx, plan, merged, mergedIds, first.type === 'cluster' ? id : parentId!);
    await tx.delete(cards).where(inList(tx, cards.id, sourceIds));
    // The stacks the merged cards left close their gaps; the document drops the merged cards.
    plan.delete(mergedIds);
    await plan.commit(deps, tx, changes);

    const row = await findCard(tx, ref.workshopId, id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'mergeCards',
      userId: ref.userId,
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
  const { cards } = tablesOf(tx);
  const rows = await tx
    .select()
    .from(cards)
    .where(and(eq(cards.workshopId, access.workshop.id), inList(tx, cards.id, ids)));
  const byId = new Map<string, CardRow>();
  for (const row of rows) if (await seesCard(tx, access, row.userId, memo)) byId.set(row.id, row);
  const missing = ids.findIndex((id) => !byId.has(id));
  if (missing !== -1) throw invalid(`cards_id.${missing}`, 'Not a card of this workshop.');
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
    throw new AppError(
      'conflict',
      "These cards were written privately by different participants; merge them after the step that reveals them, or they would see each other's writing.",
    );
  }
  return [...hidden][0]!;
}

/** Moves votes, ratings, items, comments and attachments of the source cards onto `targetId`. */
async function moveFeedback(tx: Db, sourceIds: readonly string[], targetId: string): Promise<void> {
  const { attachments, comments, items, ratings, votes } = tablesOf(tx);
  const fromSources = (table: { cardId: Column }) => inList(tx, table.cardId, sourceIds);
  // One rating per user and criterion survives: the most recently changed.
  await execute(
    tx,
    sql`
    DELETE FROM ratings WHERE id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (
          PARTITION BY user_id, criterium_id ORDER BY updated_at DESC, created_at DESC, ${CREATION_ORDER_COLUMN} DESC
        ) AS rank
        FROM ratings WHERE ${inList(tx, sql`card_id`, sourceIds)}
      ) AS ranked WHERE rank > 1
    )`,
  );
  await tx.update(ratings).set({ cardId: targetId }).where(fromSources(ratings));
  await tx.update(votes).set({ cardId: targetId }).where(fromSources(votes));
  await tx.update(items).set({ cardId: targetId }).where(fromSources(items));
  await tx.update(comments).set({ cardId: targetId }).where(fromSources(comments));
  await tx.update(attachments).set({ cardId: targetId }).where(fromSources(attachments));
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
  const { cards } = tablesOf(tx);
  for (const cluster of merged) {
    if (cluster.type !== 'cluster') continue;
    const ideas = await tx
      .select({ id: cards.id })
      .from(cards)
      .where(and(eq(cards.workshopId, cluster.workshopId), eq(cards.parentId, cluster.id)))
      .orderBy(asc(cards.position), asc(cards.id));
    for (const idea of ideas) {
      if (mergedIds.has(idea.id)) continue;
      await plan.move(cluster.id, newParentId, idea.id);
      await tx.update(cards).set({ parentId: newParentId }).where(eq(cards.id, idea.id));
    }
  }
}
