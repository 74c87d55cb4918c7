import { and, asc, eq, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { newId } from '../../db/columns';
import { attachments, cards, comments, items, ratings, votes } from '../../db/schema/index';
import { invalid } from '../../http/errors';
import { write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { StackPlan } from './placements';
import { findCard, nextCardNumber } from './repo';
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

    // The new card takes the first card's place among the siblings that remain. Positions are
    // planned here and written by the workshop's document, with the SQL copy, at the end.
    const plan = new StackPlan(db, ref.workshopId);
    const siblings = plan.ids(parentId);
    const place = siblings.slice(0, Math.max(0, siblings.indexOf(first.id))).filter((id) => !mergedIds.has(id)).length;
    for (const card of merged) plan.remove(card.parentId, card.id);
    const id = newId();
    plan.insert(parentId, id, place);

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
    adoptIdeas(tx, plan, merged, mergedIds, first.type === 'cluster' ? id : parentId!);
    tx.delete(cards).where(sql`${cards.id} IN (SELECT value FROM json_each(${sourceIds}))`).run();
    // The stacks the merged cards left close their gaps; the document drops the merged cards.
    plan.delete(mergedIds);
    plan.commit(deps, changes);

    const row = findCard(db, ref.workshopId, id);
    changes.record({ workshopId: ref.workshopId, action: 'mergeCards', userId: ref.userId, change: { card: cardForEvent(db, row), merged_ids: [...mergedIds] } });
    unhookViewReferences(deps, tx, changes, ref, { cardIds: [...mergedIds] });
    // Zones linked to a merged cluster follow it into the new cluster.
    relinkZones(deps, changes, { ...ref, from: [...mergedIds], to: first.type === 'cluster' ? id : null });
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
 * cluster by cluster in the order the clusters were listed (their positions through `plan`).
 */
function adoptIdeas(tx: Tx, plan: StackPlan, merged: CardRow[], mergedIds: ReadonlySet<string>, newParentId: string): void {
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
      plan.move(cluster.id, newParentId, idea.id);
      tx.update(cards).set({ parentId: newParentId }).where(eq(cards.id, idea.id)).run();
    }
  }
}
