import type Database from 'better-sqlite3';
import type { CardCopy, CardPlacement, LayoutCopy } from '../../collab/types';

type Row = [id: string, parentId: string | null, userId: string, position: number, x: number | null, y: number | null];
const copyOf = ([id, parentId, userId, position, x, y]: Row): CardCopy => ({ id, parentId, userId, position, x, y });

/**
 * The cards side of the documents' SQL copy (`LayoutCopy`): which cards exist, in which stack, by
 * whom, and their placement columns. The documents write `position`, `x` and `y` of existing
 * cards only through `writeCard`, inside the transaction that stores the document update.
 * Statements are prepared once; every update a client sends runs through them.
 */
export function placementCopy(sqlite: Database.Database): Pick<LayoutCopy, 'cards' | 'card' | 'stack' | 'isCluster' | 'writeCard'> {
  const q = {
    // Every card of a workshop, on each document load: arrays skip building an object per column.
    cards: sqlite.prepare<[string], Row>('SELECT id, parent_id, user_id, position, x, y FROM cards WHERE workshop_id = ?').raw(),
    card: sqlite.prepare<[string, string], Row>('SELECT id, parent_id, user_id, position, x, y FROM cards WHERE id = ? AND workshop_id = ?').raw(),
    stack: sqlite
      .prepare<[string, string | null], Row>(
        'SELECT id, parent_id, user_id, position, x, y FROM cards WHERE workshop_id = ? AND parent_id IS ? ORDER BY position, id',
      )
      .raw(),
    isCluster: sqlite.prepare<[string, string], number>("SELECT 1 FROM cards WHERE id = ? AND workshop_id = ? AND type = 'cluster'").pluck(),
    writeCard: sqlite.prepare<[number, number | null, number | null, string, string, number, number | null, number | null]>(
      `UPDATE cards SET position = ?, x = ?, y = ? WHERE id = ? AND workshop_id = ?
         AND (position IS NOT ? OR x IS NOT ? OR y IS NOT ?)`,
    ),
  };
  return {
    cards: (workshopId) => q.cards.all(workshopId).map(copyOf),
    card(workshopId, cardId) {
      const row = q.card.get(cardId, workshopId);
      return row ? copyOf(row) : undefined;
    },
    stack: (workshopId, parentId) => q.stack.all(workshopId, parentId).map(copyOf),
    isCluster: (workshopId, cardId) => q.isCluster.get(cardId, workshopId) !== undefined,
    writeCard(workshopId: string, cardId: string, p: CardPlacement) {
      q.writeCard.run(p.position, p.x, p.y, cardId, workshopId, p.position, p.x, p.y);
    },
  };
}
