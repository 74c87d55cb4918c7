import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import type { CardPlacement } from '../../domain/canvas';

/*
 * Queries of the cards' placement columns (`position`, `x`, `y`): the cards side of the documents'
 * SQL copy (`placement-copy.ts`), which a REST write's stack plan reads too.
 */

/** Every update a client sends runs through these: prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { cards } = tablesOf(db);
  const p = sql.placeholder;
  const copy = {
    id: cards.id,
    parentId: cards.parentId,
    userId: cards.userId,
    authorVisibility: cards.authorVisibility,
    position: cards.position,
    x: cards.x,
    y: cards.y,
  };
  return {
    // Every card of a workshop, on each document load.
    cards: named(
      db
        .select(copy)
        .from(cards)
        .where(eq(cards.workshopId, p('workshopId'))),
      'cards_copy_all',
    ),
    card: named(
      db
        .select(copy)
        .from(cards)
        .where(and(eq(cards.id, p('cardId')), eq(cards.workshopId, p('workshopId')))),
      'cards_copy_one',
    ),
    stack: named(
      db
        .select(copy)
        .from(cards)
        .where(and(eq(cards.workshopId, p('workshopId')), sql`${cards.parentId} IS NOT DISTINCT FROM ${p('parentId')}`))
        .orderBy(asc(cards.position), asc(cards.id)),
      'cards_copy_stack',
    ),
    isCluster: named(
      db
        .select({ id: cards.id })
        .from(cards)
        .where(and(eq(cards.id, p('cardId')), eq(cards.workshopId, p('workshopId')), eq(cards.type, 'cluster'))),
      'cards_copy_is_cluster',
    ),
    writeCard: named(
      db
        .update(cards)
        .set({ position: sql`${p('position')}`, x: sql`${p('x')}`, y: sql`${p('y')}` })
        .where(
          and(
            eq(cards.id, p('cardId')),
            eq(cards.workshopId, p('workshopId')),
            sql`(${cards.position} IS DISTINCT FROM ${p('position')} OR ${cards.x} IS DISTINCT FROM ${p('x')} OR ${cards.y} IS DISTINCT FROM ${p('y')})`,
          ),
        ),
      'cards_copy_write',
    ),
  };
});

/** Every card of the workshop, as the copy holds it. */
export function copiedCards(db: Db, workshopId: string) {
  return statements(db).cards.execute({ workshopId });
}

/** The card, if it belongs to the workshop. */
export async function copiedCard(db: Db, workshopId: string, cardId: string) {
  const [row] = await statements(db).card.execute({ cardId, workshopId });
  return row;
}

/** The cards under `parentId` (all clusters for null), by position. */
export function copiedStack(db: Db, workshopId: string, parentId: string | null) {
  return statements(db).stack.execute({ workshopId, parentId });
}

/** Whether the card is a cluster of the workshop. */
export async function isClusterOfWorkshop(db: Db, workshopId: string, cardId: string): Promise<boolean> {
  return (await statements(db).isCluster.execute({ cardId, workshopId })).length > 0;
}

/** Writes the card's placement; a row already equal is left untouched. */
export async function writeCardPlacement(
  tx: Db,
  workshopId: string,
  cardId: string,
  placement: CardPlacement,
): Promise<void> {
  await statements(tx).writeCard.execute({
    cardId,
    workshopId,
    position: placement.position,
    x: placement.x,
    y: placement.y,
  });
}
