import { and, eq, sql } from 'drizzle-orm';
import { sqliteOf, type Db, type DbOrTx } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { cards, workshops } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import type { CardFields, CardRow, CardType, ListCardsQuery } from './schemas';

const queries = preparedPerDb((db: Db) => ({
  one: db
    .select()
    .from(cards)
    .where(and(eq(cards.id, sql.placeholder('id')), eq(cards.workshopId, sql.placeholder('workshopId'))))
    .prepare(),
}));

/*
 * The card list is a hot path: plain statements returning arrays skip the query builder's row
 * mapping, and rows come in index order (clusters first, then ideas grouped by cluster), so
 * `inListOrder` only has to interleave them. Absent filters are bound as null.
 */
const listStatements = preparedPerDb((db: Db) => {
  const sqlite = sqliteOf(db);
  return {
    cards: sqlite
      .prepare<ListParams, RawCard>(
        `SELECT id, number, type, title, content, aside, user_id, position, parent_id, color FROM cards
          WHERE workshop_id = @workshopId AND (@type IS NULL OR type = @type)
            AND (@parent IS NULL OR parent_id = @parent) AND (@aside IS NULL OR aside = @aside)
          ORDER BY parent_id, position`,
      )
      .raw(),
    clusterPositions: sqlite
      .prepare<[string], [id: string, position: number]>('SELECT id, position FROM cards WHERE workshop_id = ? AND parent_id IS NULL')
      .raw(),
  };
});

interface ListParams {
  workshopId: string;
  type: string | null;
  parent: string | null;
  aside: number | null;
}

type RawCard = [
  id: string,
  number: number,
  type: CardType,
  title: string,
  content: string,
  aside: number,
  userId: string,
  position: number,
  parentId: string | null,
  color: string | null,
];

/** A workshop's cards, filtered: clusters by position, each followed by its ideas by position. */
export function listCardRows(db: Db, workshopId: string, filters: ListCardsQuery = {}): CardFields[] {
  const q = listStatements(db);
  const rows = q.cards.all({
    workshopId,
    type: filters.type ?? null,
    parent: filters.parent ?? null,
    aside: filters.aside === undefined ? null : Number(filters.aside),
  });
  const list = rows.map(([id, number, type, title, content, aside, userId, position, parentId, color]) => ({
    id, number, type, title, content, aside: aside === 1, userId, position, parentId, color,
  }));
  return inListOrder(list, () => q.clusterPositions.all(workshopId));
}

/**
 * Interleaves rows sorted by (parent, position) into list order. Ideas whose cluster was
 * filtered out are placed by that cluster's position, read only when needed.
 */
function inListOrder(rows: CardFields[], clusterPositions: () => Array<[string, number]>): CardFields[] {
  const clusters: CardFields[] = [];
  const ideas = new Map<string, CardFields[]>();
  for (const row of rows) {
    if (row.parentId === null) clusters.push(row);
    else {
      const stack = ideas.get(row.parentId);
      if (stack) stack.push(row);
      else ideas.set(row.parentId, [row]);
    }
  }
  if (ideas.size === 0) return clusters;
  const ordered: CardFields[] = [];
  for (const cluster of clusters) {
    ordered.push(cluster);
    const stack = ideas.get(cluster.id);
    if (stack) {
      ordered.push(...stack);
      ideas.delete(cluster.id);
    }
  }
  if (ideas.size > 0) {
    const positions = new Map(clusterPositions());
    const rest = [...ideas.entries()].sort(([a], [b]) => (positions.get(a) ?? 0) - (positions.get(b) ?? 0) || (a < b ? -1 : 1));
    for (const [, stack] of rest) ordered.push(...stack);
  }
  return ordered;
}

/** The card, which must belong to the workshop (404 otherwise, whatever the reason). */
export function findCard(db: Db, workshopId: string, cardId: string): CardRow {
  const row = queries(db).one.get({ id: cardId, workshopId });
  if (!row) throw notFound('Card');
  return row;
}

/** The card if it is a cluster of this workshop, else undefined. */
export function findCluster(db: Db, workshopId: string, cardId: string): CardRow | undefined {
  const row = queries(db).one.get({ id: cardId, workshopId });
  return row?.type === 'cluster' ? row : undefined;
}

/** Cards one workshop may hold: far beyond a real workshop, and a bound on what one list or export costs. */
export const WORKSHOP_MAX_CARDS = 10_000;

/** Refuses a write that would take the workshop past `WORKSHOP_MAX_CARDS` (409 `conflict`). */
export function requireRoomForCards(tx: DbOrTx, workshopId: string, adding: number): void {
  const { n } = tx.select({ n: sql<number>`count(*)` }).from(cards).where(eq(cards.workshopId, workshopId)).get()!;
  if (n + adding > WORKSHOP_MAX_CARDS) {
    throw new AppError('conflict', `A workshop holds at most ${WORKSHOP_MAX_CARDS} cards; this one has ${n}.`);
  }
}

/** Hands out the workshop's next card number; numbers are never reused. */
export function nextCardNumber(tx: DbOrTx, workshopId: string): number {
  return reserveCardNumbers(tx, workshopId, 1);
}

/** Reserves `count` consecutive card numbers and returns the first. */
export function reserveCardNumbers(tx: DbOrTx, workshopId: string, count: number): number {
  const row = tx
    .update(workshops)
    .set({ lastCardNumber: sql`${workshops.lastCardNumber} + ${count}` })
    .where(eq(workshops.id, workshopId))
    .returning({ last: workshops.lastCardNumber })
    .get();
  if (!row) throw notFound('Workshop');
  return row.last - count + 1;
}
