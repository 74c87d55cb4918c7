import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import type { VoteRow } from './schemas';

/** What a user has already spent, positive values and negative magnitudes. */
export interface VoteSpending {
  positive: number;
  negative: number;
}

/** Voting is the busiest write: every statement on its path is prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { votes, voteTallies } = tablesOf(db);
  const p = sql.placeholder;
  return {
    // The voter's tallies kept by triggers on votes (see `voteTallies` in the schema): on this card,
    // and summed over the cards of the workshop they voted on (vote_tallies_workshop_user), in one statement.
    spending: named(
      db
        .select({
          cardPositive: sql<number>`coalesce(sum(case when ${voteTallies.cardId} = ${p('cardId')} then ${voteTallies.positive} end), 0)`.mapWith(Number),
          cardNegative: sql<number>`coalesce(sum(case when ${voteTallies.cardId} = ${p('cardId')} then ${voteTallies.negative} end), 0)`.mapWith(Number),
          positive: sql<number>`coalesce(sum(${voteTallies.positive}), 0)`.mapWith(Number),
          negative: sql<number>`coalesce(sum(${voteTallies.negative}), 0)`.mapWith(Number),
        })
        .from(voteTallies)
        .where(and(eq(voteTallies.workshopId, p('workshopId')), eq(voteTallies.userId, p('userId')))),
      'votes_spending',
    ),
    insert: named(
      db
        .insert(votes)
        .values({ id: p('id'), workshopId: p('workshopId'), cardId: p('cardId'), userId: p('userId'), value: p('value'), createdAt: p('now'), updatedAt: p('now') })
        .returning(),
      'votes_insert',
    ),
    find: named(db.select().from(votes).where(and(eq(votes.id, p('id')), eq(votes.cardId, p('cardId')))), 'votes_find'),
    update: named(
      db
        .update(votes)
        .set({ value: sql`${p('value')}`, updatedAt: sql`${p('now')}` })
        .where(eq(votes.id, p('id')))
        .returning(),
      'votes_update',
    ),
    // Casting order; rowid breaks ties between votes of the same millisecond.
    list: named(db.select().from(votes).where(eq(votes.cardId, p('cardId'))).orderBy(asc(votes.createdAt), asc(sql`rowid`)), 'votes_list'),
    listOwn: named(
      db
        .select()
        .from(votes)
        .where(and(eq(votes.cardId, p('cardId')), eq(votes.userId, p('userId'))))
        .orderBy(asc(votes.createdAt), asc(sql`rowid`)),
      'votes_list_own',
    ),
  };
});

/** What a vote of `value` adds to its voter's spending. */
const spendingOfValue = (value: number): VoteSpending => ({ positive: Math.max(value, 0), negative: Math.max(-value, 0) });

/**
 * The user's spending on one card and across the workshop, leaving out `replaced` (the value of a
 * vote being changed) from both.
 */
export async function spendingOf(
  db: Db,
  q: { workshopId: string; cardId: string; userId: string; replaced?: number | undefined },
): Promise<{ card: VoteSpending; workshop: VoteSpending }> {
  const [row] = await statements(db).spending.execute({ workshopId: q.workshopId, cardId: q.cardId, userId: q.userId });
  return {
    card: without({ positive: row?.cardPositive ?? 0, negative: row?.cardNegative ?? 0 }, q.replaced),
    workshop: without({ positive: row?.positive ?? 0, negative: row?.negative ?? 0 }, q.replaced),
  };
}

function without(spending: VoteSpending, replaced: number | undefined): VoteSpending {
  if (replaced === undefined) return spending;
  const gone = spendingOfValue(replaced);
  return { positive: spending.positive - gone.positive, negative: spending.negative - gone.negative };
}

export async function insertVote(db: Db, row: { id: string; workshopId: string; cardId: string; userId: string; value: number; now: string }): Promise<VoteRow> {
  return (await statements(db).insert.execute(row))[0]!;
}

export async function findVote(db: Db, cardId: string, id: string): Promise<VoteRow | undefined> {
  return (await statements(db).find.execute({ id, cardId }))[0];
}

export async function updateVoteValue(db: Db, id: string, value: number, now: string): Promise<VoteRow> {
  return (await statements(db).update.execute({ id, value, now }))[0]!;
}

export async function deleteVote(db: Db, id: string): Promise<void> {
  const { votes } = tablesOf(db);
  await db.delete(votes).where(eq(votes.id, id));
}

/** A card's votes in the order they were cast; only `userId`'s when given. */
export async function listVotes(db: Db, cardId: string, userId?: string): Promise<VoteRow[]> {
  const q = statements(db);
  return userId === undefined ? q.list.execute({ cardId }) : q.listOwn.execute({ cardId, userId });
}
