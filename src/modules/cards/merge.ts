import { and, asc, eq, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { newId } from '../../db/columns';
import { arrange } from '../../db/positions';
import { attachments, cards, comments, items, ratings, votes } from '../../db/schema/index';
import { invalid } from '../../http/errors';
import { write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { pushPlacements } from './placements';
import { findCard, nextCardNumber, repackStack, stackScope } from './repo';
import type { CardOutput, CardRow, MergeCardsInput } from './schemas';
import { relinkZones } from '../canvas/zones';
import { unhookViewReferences } from '../workshops/view-references';
import { cardFor, cardForEvent, type WorkshopRef } from './service';

/**
 * Merges cards into a new one (CONTRACT §7): it takes the first card's type, parent and place;
 * the feedback of every merged card moves onto it (one rating per user and criterion, the latest
 * kept); ideas of merged clusters move under it, or under its cluster when it is an idea; the
 * merged cards are deleted. One transaction: all or nothing.
 */
export function mergeCards(deps: AppDeps, ref: WorkshopRef, input: MergeCardsInput): CardOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    const access = loadAccess(db, ref.workshopId, ref.userId);
    const merged = input.cards_id.map((id, index) => {
      try {
        return findCard(db, ref.workshopId, id);
      } catch {
        throw invalid(`cards_id.${index}`, 'Not a card of this workshop.');
      }
    });
    const first = merged[0]!;
    authorize(access, first.type === 'cluster' ? 'add_cluster' : 'add_idea');
    for (const card of merged) authorize(access, { delete_card: { authorId: card.userId } });

    const mergedIds = new Set(merged.map((card) => card.id));
    const parentId = first.type === 'idea' ? first.parentId : null;
    if (parentId !== null && mergedIds.has(parentId)) {
      throw invalid('cards_id', 'An idea listed first cannot be merged with its own cluster; list the cluster first.');
    }

    // The new card takes the first card's place among the siblings that remain.
    const siblings = tx.select({ id: cards.id, position: cards.position }).from(cards).where(stackScope(ref.workshopId, parentId)).all();
    const place = siblings.filter((s) => !mergedIds.has(s.id) && s.position < first.position).length;

    const id = newId();
    tx.insert(cards)
      .values({
        id,
        workshopId: ref.workshopId,
        number: nextCardNumber(tx, ref.workshopId),
        type: first.type,
        title: input.title ?? first.title,
        content: input.content ?? first.content,
        color: first.type === 'cluster' ? first.color : null,
        aside: first.aside,
        parentId,
        position: place,
        userId: ref.userId,
      })
      .run();

    const sourceIds = JSON.stringify([...mergedIds]);
    moveFeedback(tx, sourceIds, id);
    if (first.type === 'cluster') adoptIdeas(tx, merged, mergedIds, id, 0);
    else adoptIdeas(tx, merged, mergedIds, parentId!, siblings.length);
    tx.delete(cards).where(sql`${cards.id} IN (SELECT value FROM json_each(${sourceIds}))`).run();

    arrange(tx, cards, stackScope(ref.workshopId, parentId), { insert: { id, position: place } });
    // Other stacks the merged cards left (clusters when the new card is an idea, other clusters' ideas).
    const leftStacks = new Set(merged.map((card) => card.parentId));
    leftStacks.delete(parentId);
    for (const stack of leftStacks) {
      if (stack === null || !mergedIds.has(stack)) repackStack(tx, ref.workshopId, stack);
    }

    pushPlacements(deps, changes, ref.workshopId, {
      stacks: [parentId, ...[...leftStacks].filter((stack) => stack === null || !mergedIds.has(stack)), ...(first.type === 'cluster' ? [id] : [])],
      removed: [...mergedIds],
    });

    const row = findCard(db, ref.workshopId, id);
    changes.record({ workshopId: ref.workshopId, action: 'mergeCards', userId: ref.userId, change: { card: cardForEvent(db, row), merged_ids: [...mergedIds] } });
    unhookViewReferences(deps, tx, changes, ref, { cardIds: [...mergedIds] });
    // Zones linked to a merged cluster follow it into the new cluster.
    relinkZones(deps, tx, changes, { ...ref, from: [...mergedIds], to: first.type === 'cluster' ? id : null });
    return cardFor(db, access, row);
  });
}

/** Moves votes, ratings, items, comments and attachments of the source cards onto `targetId`. */
function moveFeedback(tx: Tx, sourceIds: string, targetId: string): void {
  const fromSources = (table: { cardId: unknown }) => sql`${table.cardId} IN (SELECT value FROM json_each(${sourceIds}))`;
  // One rating per user and criterion survives: the most recently changed.
  tx.run(sql`
    DELETE FROM ratings WHERE id IN (
      SELECT id FROM (
        SELECT id, row_number() OVER (
          PARTITION BY user_id, criterium_id ORDER BY updated_at DESC, created_at DESC, rowid DESC
        ) AS rank
        FROM ratings WHERE card_id IN (SELECT value FROM json_each(${sourceIds}))
      ) WHERE rank > 1
    )`);
  tx.update(ratings).set({ cardId: targetId }).where(fromSources(ratings)).run();
  tx.update(votes).set({ cardId: targetId }).where(fromSources(votes)).run();
  tx.update(items).set({ cardId: targetId }).where(fromSources(items)).run();
  tx.update(comments).set({ cardId: targetId }).where(fromSources(comments)).run();
  tx.update(attachments).set({ cardId: targetId }).where(fromSources(attachments)).run();
}

/**
 * Ideas of merged clusters that are not merged themselves move to the end of `newParentId`'s stack,
 * cluster by cluster in the order the clusters were listed, numbered from `offset`: 0 for the new
 * cluster's empty stack, else at least the stack's size, so they sort last until it is re-packed.
 */
function adoptIdeas(tx: Tx, merged: CardRow[], mergedIds: ReadonlySet<string>, newParentId: string, offset: number): void {
  let next = offset;
  for (const cluster of merged) {
    if (cluster.type !== 'cluster') continue;
    const ideas = tx
      .select({ id: cards.id })
      .from(cards)
      .where(and(eq(cards.workshopId, cluster.workshopId), eq(cards.parentId, cluster.id)))
      .orderBy(asc(cards.position), asc(cards.id))
      .all();
    for (const idea of ideas) {
      if (mergedIds.has(idea.id)) continue;
      tx.update(cards).set({ parentId: newParentId, position: next++ }).where(eq(cards.id, idea.id)).run();
    }
  }
}
