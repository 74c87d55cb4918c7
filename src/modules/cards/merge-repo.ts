import { and, asc, eq, sql, type Column } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { execute, inList } from '../../db/sql';
import { CREATION_ORDER_COLUMN } from '../../db/creation-order';
import type { CardRow } from './schemas';

/* Queries of a merge (`merge.ts`): the cards merged, the card they become, and what moves onto it. */

/** The workshop's cards among `ids`, in no particular order; ids of other cards are left out. */
export function cardsAmong(tx: Db, workshopId: string, ids: readonly string[]): Promise<CardRow[]> {
  const { cards } = tablesOf(tx);
  return tx
    .select()
    .from(cards)
    .where(and(eq(cards.workshopId, workshopId), inList(tx, cards.id, ids)));
}

/** Inserts the card the merged cards become. */
export async function insertMergedCard(tx: Db, values: Schema['cards']['$inferInsert']): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.insert(cards).values(values);
}

/**
 * Moves votes, ratings, items, comments and attachments of the source cards onto `targetId`. One
 * rating per user and criterion survives: the most recently changed.
 */
export async function moveFeedbackOnto(tx: Db, sourceIds: readonly string[], targetId: string): Promise<void> {
  const { attachments, comments, items, ratings, votes } = tablesOf(tx);
  const fromSources = (table: { cardId: Column }) => inList(tx, table.cardId, sourceIds);
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

/** The ids of the cluster's ideas, by position. */
export async function ideaIdsByPosition(tx: Db, workshopId: string, clusterId: string): Promise<string[]> {
  const { cards } = tablesOf(tx);
  const ideas = await tx
    .select({ id: cards.id })
    .from(cards)
    .where(and(eq(cards.workshopId, workshopId), eq(cards.parentId, clusterId)))
    .orderBy(asc(cards.position), asc(cards.id));
  return ideas.map((idea) => idea.id);
}

/** Moves the card under another parent (its position is the document's to write). */
export async function setParent(tx: Db, cardId: string, parentId: string): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.update(cards).set({ parentId }).where(eq(cards.id, cardId));
}

/** Deletes the cards (their ideas and feedback have moved away). */
export async function deleteCards(tx: Db, ids: readonly string[]): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.delete(cards).where(inList(tx, cards.id, ids));
}
