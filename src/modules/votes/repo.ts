import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb, preparedPerSize, rowPlaceholders, rowValues, ROWS_PER_INSERT } from '../../db/prepared';
import { inPairs } from '../../db/sql';
import type { VoteRow } from './schemas';

/** What a user has already spent, positive values and negative magnitudes. */
export interface VoteSpending {
  positive: number;
  negative: number;
}

/** Voting is the busiest write: every statement on its path is prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { votes, voteTallies, voteTotals } = tablesOf(db);
  const p = sql.placeholder;
  return {
    // The voter's points on this card and across the workshop, kept by triggers on votes
    // (`vote_tallies`, `vote_totals`): two rows, however many cards the voter voted on.
    spending: named(
      db
        .select({
          cardPositive: sql<number>`coalesce((select ${voteTallies.positive} from ${voteTallies} where ${voteTallies.cardId} = ${p('cardId')} and ${voteTallies.userId} = ${p('userId')}), 0)`.mapWith(Number),
          cardNegative: sql<number>`coalesce((select ${voteTallies.negative} from ${voteTallies} where ${voteTallies.cardId} = ${p('cardId')} and ${voteTallies.userId} = ${p('userId')}), 0)`.mapWith(Number),
          positive: sql<number>`coalesce(max(${voteTotals.positive}), 0)`.mapWith(Number),
          negative: sql<number>`coalesce(max(${voteTotals.negative}), 0)`.mapWith(Number),
        })
        .from(voteTotals)
        .where(and(eq(voteTotals.workshopId, p('workshopId')), eq(voteTotals.userId, p('userId')))),
      'votes_spending',
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
export const spendingOfValue = (value: number): VoteSpending => ({ positive: Math.max(value, 0), negative: Math.max(-value, 0) });

/** One voter's spending: across the workshop, and by card. */
export interface VoterSpending {
  workshop: VoteSpending;
  cards: Map<string, VoteSpending>;
}

/** The statements of a batch of votes: lists bound as one parameter (`inList`, `inPairs`). */
const batchStatements = preparedPerDb((db: Db) => {
  const { voteTallies, voteTotals } = tablesOf(db);
  const p = sql.placeholder;
  return {
    totals: named(
      db
        .select({ workshopId: voteTotals.workshopId, userId: voteTotals.userId, positive: voteTotals.positive, negative: voteTotals.negative })
        .from(voteTotals)
        .where(inPairs(db, voteTotals.workshopId, voteTotals.userId, p('pairs'))),
      'votes_batch_totals',
    ),
    onCards: named(
      db
        .select({ userId: voteTallies.userId, cardId: voteTallies.cardId, positive: voteTallies.positive, negative: voteTallies.negative })
        .from(voteTallies)
        .where(inPairs(db, voteTallies.cardId, voteTallies.userId, p('pairs'))),
      'votes_batch_on_cards',
    ),
  };
});

/** The key of a voter's spending in a workshop in the map `spendingOfVoters` answers. */
export const voterKey = (workshopId: string, userId: string) => `${workshopId}\u0000${userId}`;

/**
 * What each voter has spent across their workshop, and on the cards asked about (nothing yet: no
 * entry), by `voterKey`. Two statements, whatever the numbers, each reading one row per voter or
 * per voter and card (`vote_totals`, and `vote_tallies` by its key).
 */
export async function spendingOfVoters(db: Db, asked: ReadonlyArray<{ workshopId: string; userId: string; cardId: string }>): Promise<Map<string, VoterSpending>> {
  const q = batchStatements(db);
  const voters = [...new Map(asked.map((a) => [voterKey(a.workshopId, a.userId), [a.workshopId, a.userId] as const])).values()];
  const totals = await q.totals.execute({ pairs: JSON.stringify(voters) });
  const spending = new Map<string, VoterSpending>(totals.map((row) => [voterKey(row.workshopId, row.userId), { workshop: { positive: row.positive, negative: row.negative }, cards: new Map() }]));
  if (spending.size === 0) return spending;
  // A card belongs to one workshop: its voter's tally is found by card and voter.
  const workshopOfCard = new Map(asked.map((a) => [a.cardId, a.workshopId]));
  const onCards = [...new Map(asked.filter((a) => spending.has(voterKey(a.workshopId, a.userId))).map((a) => [`${a.cardId}\u0000${a.userId}`, [a.cardId, a.userId] as const])).values()];
  for (const row of await q.onCards.execute({ pairs: JSON.stringify(onCards) })) {
    spending.get(voterKey(workshopOfCard.get(row.cardId)!, row.userId))?.cards.set(row.cardId, { positive: row.positive, negative: row.negative });
  }
  return spending;
}

/** Inserts of up to this many votes are prepared, one statement per count. */
const PREPARED_ROWS = 64;

type NewVote = Pick<VoteRow, 'id' | 'workshopId' | 'cardId' | 'userId' | 'value' | 'createdAt' | 'updatedAt'>;

const insertsOfSize = preparedPerSize(PREPARED_ROWS, (db: Db, size: number) => {
  const { votes } = tablesOf(db);
  const rows = rowPlaceholders(size, ['id', 'workshopId', 'cardId', 'userId', 'value', 'createdAt', 'updatedAt'] as const);
  return named(db.insert(votes).values(rows).returning(), `votes_insert_${size}`);
});

/** Inserts votes in as few statements as their number allows; answers the rows in the same order. */
export async function insertVotes(db: Db, rows: readonly NewVote[]): Promise<VoteRow[]> {
  const inserted: VoteRow[] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    const chunk = rows.slice(at, at + ROWS_PER_INSERT);
    const prepared = insertsOfSize(db, chunk.length);
    const returned = prepared ? await prepared.execute(rowValues(chunk)) : await db.insert(tablesOf(db).votes).values([...chunk]).returning();
    // RETURNING's order is not promised: the rows are matched to the inputs by id.
    const byId = new Map(returned.map((row) => [row.id, row]));
    inserted.push(...chunk.map((row) => byId.get(row.id)!));
  }
  return inserted;
}

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
