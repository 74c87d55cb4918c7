import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb, rowInserter, type Insertable } from '../../db/prepared';
import { inPairs } from '../../db/sql';
import type { VoteRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

/** What a user has already spent, positive values and negative magnitudes. */
export interface VoteSpending {
  positive: number;
  negative: number;
}

/** Voting is the busiest write: every statement on its path is prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { votes } = tablesOf(db);
  const p = sql.placeholder;
  return {
    find: named(
      db
        .select()
        .from(votes)
        .where(and(eq(votes.id, p('id')), eq(votes.cardId, p('cardId')))),
      'votes_find',
    ),
    update: named(
      db
        .update(votes)
        .set({ value: sql`${p('value')}`, updatedAt: sql`${p('now')}` })
        .where(eq(votes.id, p('id')))
        .returning(),
      'votes_update',
    ),
    // Casting order; creation order breaks ties between votes of the same millisecond.
    list: named(
      db
        .select()
        .from(votes)
        .where(eq(votes.cardId, p('cardId')))
        .orderBy(asc(votes.createdAt), asc(creationOrder(votes))),
      'votes_list',
    ),
    listOwn: named(
      db
        .select()
        .from(votes)
        .where(and(eq(votes.cardId, p('cardId')), eq(votes.userId, p('userId'))))
        .orderBy(asc(votes.createdAt), asc(creationOrder(votes))),
      'votes_list_own',
    ),
  };
});

/** What a vote of `value` adds to its voter's spending. */
export const spendingOfValue = (value: number): VoteSpending => ({
  positive: Math.max(value, 0),
  negative: Math.max(-value, 0),
});

/** One voter's spending: across the workshop, and by card. */
export interface VoterSpending {
  workshop: VoteSpending;
  cards: Map<string, VoteSpending>;
}

/** The statements of a batch of votes: lists bound as one parameter (`inPairs`). */
const batchStatements = preparedPerDb((db: Db) => {
  const { voteTallies, voteTotals } = tablesOf(db);
  const p = sql.placeholder;
  return {
    // Each voter's row of `vote_totals`, with their rows of `vote_tallies` on the cards asked about:
    // one row per voter and card they hold points on, or one without a card. The tallies are joined
    // on their key (card, voter) alone, so that SQLite reads them through it (joined on the workshop
    // too, it reads every tally of the voter there): a voter's tally on a card of another workshop
    // of the batch comes along with each of their totals, and is left out below.
    spending: named(
      db
        .select({
          workshopId: voteTotals.workshopId,
          userId: voteTotals.userId,
          positive: voteTotals.positive,
          negative: voteTotals.negative,
          cardId: voteTallies.cardId,
          cardWorkshopId: voteTallies.workshopId,
          cardPositive: voteTallies.positive,
          cardNegative: voteTallies.negative,
        })
        .from(voteTotals)
        .leftJoin(
          voteTallies,
          and(
            eq(voteTallies.userId, voteTotals.userId),
            inPairs(db, voteTallies.cardId, voteTallies.userId, p('cards')),
          ),
        )
        .where(inPairs(db, voteTotals.workshopId, voteTotals.userId, p('voters'))),
      'votes_batch_spending',
    ),
  };
});

/** The key of a voter's spending in a workshop in the map `spendingOfVoters` answers. */
export const voterKey = (workshopId: string, userId: string) => `${workshopId}\u0000${userId}`;

/**
 * What each voter has spent across their workshop, and on the cards asked about (nothing yet: no
 * entry), by `voterKey`. One statement, whatever the numbers, reading one row per voter and one
 * per voter and card (`vote_totals`, and `vote_tallies` by its key): votes, batched or not, and a
 * changed vote read it alike.
 */
export async function spendingOfVoters(
  db: Db,
  asked: ReadonlyArray<{ workshopId: string; userId: string; cardId: string }>,
): Promise<Map<string, VoterSpending>> {
  const spending = new Map<string, VoterSpending>();
  if (asked.length === 0) return spending;
  const voters = [
    ...new Map(asked.map((a) => [voterKey(a.workshopId, a.userId), [a.workshopId, a.userId] as const])).values(),
  ];
  const cards = [
    ...new Map(asked.map((a) => [`${a.cardId}\u0000${a.userId}`, [a.cardId, a.userId] as const])).values(),
  ];
  const rows = await batchStatements(db).spending.execute({
    voters: JSON.stringify(voters),
    cards: JSON.stringify(cards),
  });
  for (const row of rows) {
    const key = voterKey(row.workshopId, row.userId);
    let voter = spending.get(key);
    if (!voter)
      spending.set(key, (voter = { workshop: { positive: row.positive, negative: row.negative }, cards: new Map() }));
    if (row.cardId !== null && row.cardWorkshopId === row.workshopId)
      voter.cards.set(row.cardId, { positive: row.cardPositive ?? 0, negative: row.cardNegative ?? 0 });
  }
  return spending;
}

type NewVote = Pick<VoteRow, 'id' | 'workshopId' | 'cardId' | 'userId' | 'value' | 'createdAt' | 'updatedAt'>;

const votesInsert = rowInserter(
  'votes_insert',
  ['id', 'workshopId', 'cardId', 'userId', 'value', 'createdAt', 'updatedAt'],
  (db, rows: Array<Insertable<NewVote>>) => db.insert(tablesOf(db).votes).values(rows).returning(),
);

/** Inserts votes in as few statements as their number allows; answers the rows in the same order. */
export async function insertVotes(db: Db, rows: readonly NewVote[]): Promise<VoteRow[]> {
  // RETURNING's order is not promised: the rows are matched to the inputs by id.
  const byId = new Map((await votesInsert(db, rows)).flat().map((row) => [row.id, row]));
  return rows.map((row) => byId.get(row.id)!);
}

/**
 * The user's spending on one card and across the workshop, leaving out `replaced` (the value of a
 * vote being changed) from both.
 */
export async function spendingOf(
  db: Db,
  q: { workshopId: string; cardId: string; userId: string; replaced?: number | undefined },
): Promise<{ card: VoteSpending; workshop: VoteSpending }> {
  const voter = (await spendingOfVoters(db, [q])).get(voterKey(q.workshopId, q.userId));
  return {
    card: without(voter?.cards.get(q.cardId) ?? { positive: 0, negative: 0 }, q.replaced),
    workshop: without(voter?.workshop ?? { positive: 0, negative: 0 }, q.replaced),
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
