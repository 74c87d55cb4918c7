import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { workshopDisplays } from '../access/load';
import { seesAllVotes, type WorkshopAccess } from '../access/rules';
import { emptySummary, type CardSummary } from './schemas';

type Count = [cardId: string, n: number];
type SectionCount = [cardId: string, sectionId: string, n: number];

/*
 * One grouped query per aggregate, for a whole workshop or for a set of cards (passed as a JSON
 * array, so one prepared statement serves any number of ids). They run on every card list, so
 * they are plain statements returning arrays.
 */
const statements = preparedPerDb((db: Db) => {
  const sqlite = sqliteOf(db);
  const inCards = 'card_id IN (SELECT value FROM json_each(@ids))';
  const both = <Row>(aggregate: (scope: string) => string) => ({
    workshop: sqlite.prepare<Params, Row>(aggregate('workshop_id = @workshopId')).raw(),
    cards: sqlite.prepare<Params, Row>(aggregate(inCards)).raw(),
  });
  return {
    // Scores from the tallies the triggers keep (one row per card and voter), not from every vote.
    score: both<Count>((scope) => `SELECT card_id, SUM(positive - negative) FROM vote_tallies WHERE ${scope} GROUP BY card_id`),
    ownScore: both<Count>((scope) => `SELECT card_id, positive - negative FROM vote_tallies WHERE ${scope} AND user_id = @userId`),
    comments: both<Count>((scope) => `SELECT card_id, COUNT(*) FROM comments WHERE ${scope} GROUP BY card_id`),
    attachments: both<Count>((scope) => `SELECT card_id, COUNT(*) FROM attachments WHERE ${scope} GROUP BY card_id`),
    sections: both<SectionCount>((scope) => `SELECT card_id, section_id, COUNT(*) FROM items WHERE ${scope} GROUP BY card_id, section_id`),
    voterScores: sqlite.prepare<[string], [userId: string, score: number]>('SELECT user_id, positive - negative FROM vote_tallies WHERE card_id = ?').raw(),
  };
});

interface Params {
  workshopId: string;
  ids: string;
  userId: string | null;
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
 * the database handle: statements run on the same connection, so they see the transaction.
 */
export function cardSummaries(
  db: Db,
  workshopId: string,
  voterId: string | null,
  cardIds?: readonly string[],
): (cardId: string) => CardSummary {
  const q = statements(db);
  const scope = cardIds ? 'cards' : 'workshop';
  const params = { workshopId, ids: cardIds ? JSON.stringify(cardIds) : '[]', userId: voterId };
  const scoreRows = voterId === null ? q.score[scope].all(params) : q.ownScore[scope].all(params);

  const summaries = new Map<string, CardSummary>();
  const entry = (cardId: string) => {
    let summary = summaries.get(cardId);
    if (!summary) {
      summary = emptySummary();
      summaries.set(cardId, summary);
    }
    return summary;
  };
  for (const [cardId, n] of scoreRows) entry(cardId).score = n;
  for (const [cardId, n] of q.comments[scope].all(params)) entry(cardId).comments = n;
  for (const [cardId, n] of q.attachments[scope].all(params)) entry(cardId).attachments = n;
  for (const [cardId, sectionId, n] of q.sections[scope].all(params)) entry(cardId).sections[sectionId] = n;
  return (cardId) => summaries.get(cardId) ?? emptySummary();
}

/**
 * A card's `summary.score` as each reader may see it now, for renderings made once for many readers
 * (live events). When the current step shows everyone's votes, one score for all; otherwise
 * facilitators see the sum of all votes, each voter the sum of their own, and other participants 0.
 */
export type ScoreReadings =
  | { shared: true; score: number }
  | { shared: false; full: number; byVoter: ReadonlyMap<string, number> };

export function scoreReadings(db: Db, workshopId: string, cardId: string): ScoreReadings {
  const byVoter = new Map(statements(db).voterScores.all(cardId));
  let full = 0;
  for (const score of byVoter.values()) full += score;
  if (workshopDisplays(db, workshopId).allow_display_votes) return { shared: true, score: full };
  return { shared: false, full, byVoter };
}
