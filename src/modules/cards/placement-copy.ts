import { and, asc, eq, sql } from 'drizzle-orm';
import type { LayoutCopy } from '../../collab/types';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';

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

/**
 * The cards side of the documents' SQL copy (`LayoutCopy`): which cards exist, in which stack, by
 * whom, and their placement columns. The documents write `position`, `x` and `y` of existing
 * cards only through `writeCard`, inside the transaction that stores the document update.
 */
export function placementCopy(): Pick<LayoutCopy, 'cards' | 'card' | 'stack' | 'isCluster' | 'writeCard'> {
  return {
    cards: (db, workshopId) => statements(db).cards.execute({ workshopId }),
    async card(db, workshopId, cardId) {
      const [row] = await statements(db).card.execute({ cardId, workshopId });
      return row;
    },
    stack: (db, workshopId, parentId) => statements(db).stack.execute({ workshopId, parentId }),
    async isCluster(db, workshopId, cardId) {
      return (await statements(db).isCluster.execute({ cardId, workshopId })).length > 0;
    },
    async writeCard(tx, workshopId, cardId, placement) {
      await statements(tx).writeCard.execute({
        cardId,
        workshopId,
        position: placement.position,
        x: placement.x,
        y: placement.y,
      });
    },
  };
}
