import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { insertChunked, named, preparedPerDb } from '../../db/prepared';
import { AppError, notFound } from '../../http/errors';
import type { CardFields, CardRow, ListCardsQuery } from './schemas';
import { WORKSHOP_MAX_CARDS } from '../../domain/cards';
import { msg } from '../../i18n/messages';

const queries = preparedPerDb((db: Db) => {
  const { cards } = tablesOf(db);
  return {
    one: named(
      db
        .select()
        .from(cards)
        .where(and(eq(cards.id, sql.placeholder('id')), eq(cards.workshopId, sql.placeholder('workshopId')))),
      'cards_one',
    ),
  };
});

/** The columns a card's output is made of (`CardFields`). */
function listColumns(db: Db) {
  const { cards } = tablesOf(db);
  return {
    id: cards.id,
    number: cards.number,
    type: cards.type,
    title: cards.title,
    content: cards.content,
    aside: cards.aside,
    userId: cards.userId,
    authorVisibility: cards.authorVisibility,
    position: cards.position,
    parentId: cards.parentId,
    color: cards.color,
  };
}

/*
 * The card list is a hot path: the unfiltered list is prepared once per connection, and rows come
 * in index order (clusters first, then ideas grouped by cluster), so `inListOrder` only has to
 * interleave them.
 */
const listStatements = preparedPerDb((db: Db) => {
  const { cards } = tablesOf(db);
  const workshopId = sql.placeholder('workshopId');
  return {
    cards: named(
      db
        .select(listColumns(db))
        .from(cards)
        .where(eq(cards.workshopId, workshopId))
        .orderBy(asc(cards.parentId), asc(cards.position)),
      'cards_list',
    ),
    clusterPositions: named(
      db
        .select({ id: cards.id, position: cards.position })
        .from(cards)
        .where(and(eq(cards.workshopId, workshopId), isNull(cards.parentId))),
      'cards_cluster_positions',
    ),
  };
});

/** The list with filters: built per call, with only the filters given. */
function filteredCardRows(db: Db, workshopId: string, filters: ListCardsQuery): Promise<CardFields[]> {
  const { cards } = tablesOf(db);
  return db
    .select(listColumns(db))
    .from(cards)
    .where(
      and(
        eq(cards.workshopId, workshopId),
        filters.type === undefined ? undefined : eq(cards.type, filters.type),
        filters.parent === undefined ? undefined : eq(cards.parentId, filters.parent),
        filters.aside === undefined ? undefined : eq(cards.aside, filters.aside),
      ),
    )
    .orderBy(asc(cards.parentId), asc(cards.position));
}

/** A workshop's cards, filtered: clusters by position, each followed by its ideas by position. */
export async function listCardRows(db: Db, workshopId: string, filters: ListCardsQuery = {}): Promise<CardFields[]> {
  const q = listStatements(db);
  const filtered = filters.type !== undefined || filters.parent !== undefined || filters.aside !== undefined;
  const rows = filtered ? await filteredCardRows(db, workshopId, filters) : await q.cards.execute({ workshopId });
  return inListOrder(rows, async () =>
    (await q.clusterPositions.execute({ workshopId })).map((row) => [row.id, row.position]),
  );
}

/**
 * Interleaves rows sorted by (parent, position) into list order. Ideas whose cluster was
 * filtered out are placed by that cluster's position, read only when needed.
 */
async function inListOrder(
  rows: CardFields[],
  clusterPositions: () => Promise<Array<[string, number]>>,
): Promise<CardFields[]> {
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
    const positions = new Map(await clusterPositions());
    const rest = [...ideas.entries()].sort(
      ([a], [b]) => (positions.get(a) ?? 0) - (positions.get(b) ?? 0) || (a < b ? -1 : 1),
    );
    for (const [, stack] of rest) ordered.push(...stack);
  }
  return ordered;
}

/** The card, which must belong to the workshop (404 otherwise, whatever the reason). */
export async function findCard(db: Db, workshopId: string, cardId: string): Promise<CardRow> {
  const [row] = await queries(db).one.execute({ id: cardId, workshopId });
  if (!row) throw notFound('card');
  return row;
}

/** The card if it is a cluster of this workshop, else undefined. */
export async function findCluster(db: Db, workshopId: string, cardId: string): Promise<CardRow | undefined> {
  const [row] = await queries(db).one.execute({ id: cardId, workshopId });
  return row?.type === 'cluster' ? row : undefined;
}

/** Refuses a write that would take the workshop past `WORKSHOP_MAX_CARDS` (409 `conflict`). */
export async function requireRoomForCards(tx: Db, workshopId: string, adding: number): Promise<void> {
  const { cards } = tablesOf(tx);
  const [row] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(cards)
    .where(eq(cards.workshopId, workshopId));
  const n = row?.n ?? 0;
  if (n + adding > WORKSHOP_MAX_CARDS) {
    throw new AppError('conflict', msg('error.cards.too_many', { max: WORKSHOP_MAX_CARDS, count: n }));
  }
}

/** Hands out the workshop's next card number; numbers are never reused. */
export function nextCardNumber(tx: Db, workshopId: string): Promise<number> {
  return reserveCardNumbers(tx, workshopId, 1);
}

/** Reserves `count` consecutive card numbers and returns the first. */
export async function reserveCardNumbers(tx: Db, workshopId: string, count: number): Promise<number> {
  const { workshops } = tablesOf(tx);
  const [row] = await tx
    .update(workshops)
    .set({ lastCardNumber: sql`${workshops.lastCardNumber} + ${count}` })
    .where(eq(workshops.id, workshopId))
    .returning({ last: workshops.lastCardNumber });
  if (!row) throw notFound('workshop');
  return row.last - count + 1;
}

export async function insertCard(tx: Db, values: Schema['cards']['$inferInsert']): Promise<CardRow> {
  const { cards } = tablesOf(tx);
  const [row] = await tx.insert(cards).values(values).returning();
  return row!;
}

/** Inserts many cards at once (an import): a statement per `insertChunked` chunk. */
export async function insertCardRows(tx: Db, rows: Array<Schema['cards']['$inferInsert']>): Promise<void> {
  await insertChunked(tx, tablesOf(tx).cards, rows);
}

export async function updateCardRow(
  tx: Db,
  cardId: string,
  fields: Pick<CardRow, 'title' | 'content' | 'color' | 'aside' | 'parentId'>,
): Promise<CardRow> {
  const { cards } = tablesOf(tx);
  const [row] = await tx
    .update(cards)
    .set({ ...fields, updatedAt: nowIso() })
    .where(eq(cards.id, cardId))
    .returning();
  return row!;
}

/** The ids of the cluster's ideas. */
export async function ideaIdsOf(tx: Db, clusterId: string): Promise<string[]> {
  const { cards } = tablesOf(tx);
  return (await tx.select({ id: cards.id }).from(cards).where(eq(cards.parentId, clusterId))).map((r) => r.id);
}

/** The ids of every card of the workshop. */
export async function cardIdsOfWorkshop(tx: Db, workshopId: string): Promise<string[]> {
  const { cards } = tablesOf(tx);
  return (await tx.select({ id: cards.id }).from(cards).where(eq(cards.workshopId, workshopId))).map((r) => r.id);
}

/** Deletes every card of the workshop, and with them their feedback. */
export async function deleteCardsOfWorkshop(tx: Db, workshopId: string): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.delete(cards).where(eq(cards.workshopId, workshopId));
}

/** Deletes the cluster's ideas (they have no foreign key to it). */
export async function deleteIdeasOf(tx: Db, clusterId: string): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.delete(cards).where(eq(cards.parentId, clusterId));
}

export async function deleteCardRow(tx: Db, cardId: string): Promise<void> {
  const { cards } = tablesOf(tx);
  await tx.delete(cards).where(eq(cards.id, cardId));
}
