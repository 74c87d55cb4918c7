import type { Db } from '../../db/database';
import { seesAllVotes } from '../access/rules';
import type { WorkshopAccess } from '../../domain/permissions';
import type { VisibilityMemo } from '../access/visibility';
import { emptySummary } from './schemas';
import type { CardSummary } from '../../domain/cards';
import { summaryRows, voterScoresOf } from './feedback-repo';

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
  const rows = await summaryRows(db, workshopId, voterId, cardIds);

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
  const byVoter = new Map((await voterScoresOf(db, cardId)).map((row) => [row.userId, row.score] as const));
  let full = 0;
  for (const score of byVoter.values()) full += score;
  if ((await memo.prefs(db, workshopId)).allow_display_votes) return { shared: true, score: full };
  return { shared: false, full, byVoter };
}
