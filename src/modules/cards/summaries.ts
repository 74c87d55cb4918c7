import { and, eq, sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList } from '../../db/sql';
import { seesAllVotes } from '../access/rules';
import type { WorkshopAccess } from '../../domain/permissions';
import type { VisibilityMemo } from '../access/visibility';
import { emptySummary } from './schemas';
import type { CardSummary } from '../../domain/cards';

/** Which rows an aggregate reads: a workshop's, or a set of cards'. */
type Scope = (table: { workshopId: Column; cardId: Column }) => SQL;

/*
 * One grouped query per aggregate, for a whole workshop or for a set of cards. They run on every
 * card list: the workshop-wide ones are prepared once per connection; those for a set of cards
 * bind the ids as one list (`inList`), whatever their number.
 */
function aggregates(db: Db, scope: Scope, voterId: string | Placeholder) {
  const { attachments, comments, items, voteTallies } = tablesOf(db);
  const count = sql<number>`count(*)`.mapWith(Number);
  return {
    // Scores from the tallies the triggers keep (one row per card and voter), not from every vote.
    score: () =>
      db
        .select({
          cardId: voteTallies.cardId,
          n: sql<number>`sum(${voteTallies.positive} - ${voteTallies.negative})`.mapWith(Number),
        })
        .from(voteTallies)
        .where(scope(voteTallies))
        .groupBy(voteTallies.cardId),
    ownScore: () =>
      db
        .select({
          cardId: voteTallies.cardId,
          n: sql<number>`${voteTallies.positive} - ${voteTallies.negative}`.mapWith(Number),
        })
        .from(voteTallies)
        .where(and(scope(voteTallies), eq(voteTallies.userId, voterId))),
    comments: () =>
      db.select({ cardId: comments.cardId, n: count }).from(comments).where(scope(comments)).groupBy(comments.cardId),
    attachments: () =>
      db
        .select({ cardId: attachments.cardId, n: count })
        .from(attachments)
        .where(scope(attachments))
        .groupBy(attachments.cardId),
    sections: () =>
      db
        .select({ cardId: items.cardId, sectionId: items.sectionId, n: count })
        .from(items)
        .where(scope(items))
        .groupBy(items.cardId, items.sectionId),
  };
}

const statements = preparedPerDb((db: Db) => {
  const { voteTallies } = tablesOf(db);
  const workshop = aggregates(
    db,
    (table) => eq(table.workshopId, sql.placeholder('workshopId')),
    sql.placeholder('userId'),
  );
  return {
    score: named(workshop.score(), 'cards_summary_score'),
    ownScore: named(workshop.ownScore(), 'cards_summary_own_score'),
    comments: named(workshop.comments(), 'cards_summary_comments'),
    attachments: named(workshop.attachments(), 'cards_summary_attachments'),
    sections: named(workshop.sections(), 'cards_summary_sections'),
    voterScores: named(
      db
        .select({
          userId: voteTallies.userId,
          score: sql<number>`${voteTallies.positive} - ${voteTallies.negative}`.mapWith(Number),
        })
        .from(voteTallies)
        .where(eq(voteTallies.cardId, sql.placeholder('cardId'))),
      'cards_voter_scores',
    ),
  };
});

interface Count {
  cardId: string;
  n: number;
}

interface AggregateRows {
  score: Count[];
  comments: Count[];
  attachments: Count[];
  sections: Array<Count & { sectionId: string }>;
}

/** The aggregates' rows of a whole workshop (prepared), or of the cards in `cardIds`. */
async function aggregateRows(
  db: Db,
  workshopId: string,
  voterId: string | null,
  cardIds?: readonly string[],
): Promise<AggregateRows> {
  if (!cardIds) {
    const q = statements(db);
    const params = { workshopId, userId: voterId };
    return {
      score: await (voterId === null ? q.score : q.ownScore).execute(params),
      comments: await q.comments.execute(params),
      attachments: await q.attachments.execute(params),
      sections: await q.sections.execute(params),
    };
  }
  const q = aggregates(db, (table) => inList(db, table.cardId, cardIds), voterId ?? '');
  return {
    score: await (voterId === null ? q.score() : q.ownScore()),
    comments: await q.comments(),
    attachments: await q.attachments(),
    sections: await q.sections(),
  };
}

/**
 * Whose votes count in `summary.score` for this caller: null for everyone's, or the caller's id
 * when the current step hides other people's votes (`allow_display_votes: false`).
 */
export function scoreVoter(access: WorkshopAccess): string | null {
  return seesAllVotes(access) ? null : access.userId;
}

/**
 * Summaries of a workshop's cards (all of them, or those in `cardIds`), computed with one grouped
 * query per aggregate. `voterId` limits the score to that user's votes (see `scoreVoter`).
 * Returns a lookup that answers an empty summary for a card without feedback. Inside a write, pass
 * the transaction's handle, so the summaries see its changes.
 */
export async function cardSummaries(
  db: Db,
  workshopId: string,
  voterId: string | null,
  cardIds?: readonly string[],
): Promise<(cardId: string) => CardSummary> {
  const rows = await aggregateRows(db, workshopId, voterId, cardIds);

  const summaries = new Map<string, CardSummary>();
  const entry = (cardId: string) => {
    let summary = summaries.get(cardId);
    if (!summary) {
      summary = emptySummary();
      summaries.set(cardId, summary);
    }
    return summary;
  };
  for (const { cardId, n } of rows.score) entry(cardId).score = n;
  for (const { cardId, n } of rows.comments) entry(cardId).comments = n;
  for (const { cardId, n } of rows.attachments) entry(cardId).attachments = n;
  for (const { cardId, sectionId, n } of rows.sections) entry(cardId).sections[sectionId] = n;
  return (cardId) => summaries.get(cardId) ?? emptySummary();
}

/**
 * A card's `summary.score` as each reader may see it now, for renderings made once for many readers
 * (live events). When the current step shows everyone's votes, one score for all; otherwise
 * facilitators see the sum of all votes, each voter the sum of their own, and other participants 0.
 */
export type ScoreReadings =
  { shared: true; score: number } | { shared: false; full: number; byVoter: ReadonlyMap<string, number> };

export async function scoreReadings(
  db: Db,
  workshopId: string,
  cardId: string,
  memo: VisibilityMemo,
): Promise<ScoreReadings> {
  const byVoter = new Map(
    (await statements(db).voterScores.execute({ cardId })).map((row) => [row.userId, row.score] as const),
  );
  let full = 0;
  for (const score of byVoter.values()) full += score;
  if ((await memo.prefs(db, workshopId)).allow_display_votes) return { shared: true, score: full };
  return { shared: false, full, byVoter };
}
