import { and, asc, eq, sql } from 'drizzle-orm';
import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { votes } from '../../db/schema/index';
import type { VoteRow } from './schemas';

/** What a user has already spent, positive values and negative magnitudes. */
export interface VoteSpending {
  positive: number;
  negative: number;
}

/** Voting is the busiest write: every statement on its path is prepared once per connection. */
const statements = preparedPerDb((db: Db) => ({
  // One row: the tallies kept by triggers on votes (see `voteTallies` in the schema).
  cardSpending: sqliteOf(db).prepare<[string, string], VoteSpending>('SELECT positive, negative FROM vote_tallies WHERE card_id = ? AND user_id = ?'),
  // One row per card the user voted on (vote_tallies_workshop_user).
  workshopSpending: sqliteOf(db).prepare<[string, string], VoteSpending>(
    'SELECT coalesce(sum(positive), 0) AS positive, coalesce(sum(negative), 0) AS negative FROM vote_tallies WHERE workshop_id = ? AND user_id = ?',
  ),
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

/** What a vote of `value` adds to its voter's spending. */
const spendingOfValue = (value: number): VoteSpending => ({ positive: Math.max(value, 0), negative: Math.max(-value, 0) });

/** The user's spending on one card, leaving out `replaced` (the value of a vote being changed). */
export function cardSpendingOf(db: Db, q: { cardId: string; userId: string; replaced?: number | undefined }): VoteSpending {
  const spending = statements(db).cardSpending.get(q.cardId, q.userId) ?? { positive: 0, negative: 0 };
  return without(spending, q.replaced);
}

/** The user's spending across the workshop, leaving out `replaced`. */
export function workshopSpendingOf(db: Db, q: { workshopId: string; userId: string; replaced?: number | undefined }): VoteSpending {
  return without(statements(db).workshopSpending.get(q.workshopId, q.userId)!, q.replaced);
}

function without(spending: VoteSpending, replaced: number | undefined): VoteSpending {
  if (replaced === undefined) return spending;
  const gone = spendingOfValue(replaced);
  return { positive: spending.positive - gone.positive, negative: spending.negative - gone.negative };
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
