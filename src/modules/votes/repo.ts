import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { votes } from '../../db/schema/index';
import type { VoteRow } from './schemas';

/** What a user has already spent, positive values and negative magnitudes. */
export interface VoteSpending {
  positive: number;
  negative: number;
}

const spent = {
  positive: sql<number>`coalesce(sum(case when ${votes.value} > 0 then ${votes.value} else 0 end), 0)`,
  negative: sql<number>`coalesce(sum(case when ${votes.value} < 0 then -${votes.value} else 0 end), 0)`,
};
const notReplaced = ne(votes.id, sql.placeholder('excludeId'));

/** Voting is the busiest write: every statement on its path is prepared once per connection. */
const statements = preparedPerDb((db: Db) => ({
  // Served by the votes_card (card_id, user_id) index: a handful of rows.
  cardSpending: db
    .select(spent)
    .from(votes)
    .where(and(eq(votes.cardId, sql.placeholder('cardId')), eq(votes.userId, sql.placeholder('userId')), notReplaced))
    .prepare(),
  // Served by votes_workshop_user; only run when the workshop-wide limit applies.
  workshopSpending: db
    .select(spent)
    .from(votes)
    .where(and(eq(votes.workshopId, sql.placeholder('workshopId')), eq(votes.userId, sql.placeholder('userId')), notReplaced))
    .prepare(),
  insert: db
    .insert(votes)
    .values({
      id: sql.placeholder('id'),
      workshopId: sql.placeholder('workshopId'),
      cardId: sql.placeholder('cardId'),
      userId: sql.placeholder('userId'),
      value: sql.placeholder('value'),
      createdAt: sql.placeholder('now'),
      updatedAt: sql.placeholder('now'),
    })
    .returning()
    .prepare(),
  find: db
    .select()
    .from(votes)
    .where(and(eq(votes.id, sql.placeholder('id')), eq(votes.cardId, sql.placeholder('cardId'))))
    .prepare(),
  update: db
    .update(votes)
    .set({ value: sql`${sql.placeholder('value')}`, updatedAt: sql`${sql.placeholder('now')}` })
    .where(eq(votes.id, sql.placeholder('id')))
    .returning()
    .prepare(),
  // Casting order; rowid breaks ties between votes of the same millisecond.
  list: db.select().from(votes).where(eq(votes.cardId, sql.placeholder('cardId'))).orderBy(asc(votes.createdAt), asc(sql`rowid`)).prepare(),
  listOwn: db
    .select()
    .from(votes)
    .where(and(eq(votes.cardId, sql.placeholder('cardId')), eq(votes.userId, sql.placeholder('userId'))))
    .orderBy(asc(votes.createdAt), asc(sql`rowid`))
    .prepare(),
}));

/** The user's spending on one card, leaving out `excludeId` (the vote being replaced, if any). */
export function cardSpendingOf(db: Db, q: { cardId: string; userId: string; excludeId?: string | undefined }): VoteSpending {
  return statements(db).cardSpending.get({ cardId: q.cardId, userId: q.userId, excludeId: q.excludeId ?? '' })!;
}

/** The user's spending across the workshop, leaving out `excludeId`. */
export function workshopSpendingOf(db: Db, q: { workshopId: string; userId: string; excludeId?: string | undefined }): VoteSpending {
  return statements(db).workshopSpending.get({ workshopId: q.workshopId, userId: q.userId, excludeId: q.excludeId ?? '' })!;
}

export function insertVote(db: Db, row: { id: string; workshopId: string; cardId: string; userId: string; value: number; now: string }): VoteRow {
  return statements(db).insert.get(row)!;
}

export function findVote(db: Db, cardId: string, id: string): VoteRow | undefined {
  return statements(db).find.get({ id, cardId });
}

export function updateVoteValue(db: Db, id: string, value: number, now: string): VoteRow {
  return statements(db).update.get({ id, value, now })!;
}

export function deleteVote(db: Db, id: string): void {
  db.delete(votes).where(eq(votes.id, id)).run();
}

/** A card's votes in the order they were cast; only `userId`'s when given. */
export function listVotes(db: Db, cardId: string, userId?: string): VoteRow[] {
  const q = statements(db);
  return userId === undefined ? q.list.all({ cardId }) : q.listOwn.all({ cardId, userId });
}
