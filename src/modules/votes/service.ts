import type { Db } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { AppError, notFound } from '../../http/errors';
import { diffFields, write, writeSoon, type WriteDeps } from '../events/recorder';
import { authorize, seesAllVotes } from '../access/rules';
import type { LoadedAccess, WorkshopRow } from '../access/load';
import { loadTarget, onCard, type CardRef, type FeedbackTarget } from '../cards/feedback-target';
import { cardSpendingOf, deleteVote, findVote, insertVote, listVotes as listVoteRows, updateVoteValue, workshopSpendingOf } from './repo';
import { toVote, type VoteOutput, type VoteRow } from './schemas';

const voteAction = (target: FeedbackTarget) => (target.card.type === 'idea' ? 'vote_on_ideas' : 'vote_on_clusters');

/** A participant who may not see all votes sees only their own, as if the others did not exist. */
function visible(access: LoadedAccess, row: VoteRow | undefined): VoteRow {
  if (!row || (!seesAllVotes(access) && row.userId !== access.userId)) throw notFound('Vote');
  return row;
}

export function listVotes(deps: WriteDeps, ref: CardRef): VoteOutput[] {
  const { access, card } = loadTarget(deps.database.db, ref);
  return listVoteRows(deps.database.db, card.id, seesAllVotes(access) ? undefined : access.userId).map(toVote);
}

export function getVote(deps: WriteDeps, ref: CardRef, voteId: string): VoteOutput {
  const { access, card } = loadTarget(deps.database.db, ref);
  return toVote(visible(access, findVote(deps.database.db, card.id, voteId)));
}

/** Votes arrive in bursts: they are written together, one commit for the votes of a moment (`writeSoon`). */
export function castVote(deps: WriteDeps, ref: CardRef, input: { value: number }): Promise<VoteOutput> {
  return writeSoon(deps, (db, changes) => {
    const target = loadTarget(db, ref);
    authorize(target.access, voteAction(target));
    requireWithinBudget(db, target.access.workshop, { cardId: target.card.id, userId: ref.userId, value: input.value });
    const row = insertVote(db, { id: newId(), workshopId: ref.workshopId, cardId: target.card.id, userId: ref.userId, value: input.value, now: nowIso() });
    const vote = toVote(row);
    changes.record({ workshopId: ref.workshopId, action: 'addVote', userId: ref.userId, change: { vote: onCard(vote, row.cardId) } });
    return vote;
  });
}

export function changeVote(deps: WriteDeps, ref: CardRef, voteId: string, input: { value?: number | undefined }): VoteOutput {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const target = loadTarget(db, ref);
    const before = visible(target.access, findVote(db, target.card.id, voteId));
    authorize(target.access, voteAction(target));
    authorize(target.access, { manage_feedback: { authorId: before.userId } });
    if (input.value === undefined || input.value === before.value) return toVote(before);
    // The old value is given back before the new one is spent; the budget is the owner's.
    requireWithinBudget(db, target.access.workshop, { cardId: before.cardId, userId: before.userId, value: input.value, replacing: before.value });
    const after = updateVoteValue(db, before.id, input.value, nowIso());
    const vote = toVote(after);
    changes.record({
      workshopId: ref.workshopId,
      action: 'updateVote',
      userId: ref.userId,
      change: { vote: onCard(vote, after.cardId), changes: diffFields(toVote(before), vote, ['value']) },
    });
    return vote;
  });
}

export function removeVote(deps: WriteDeps, ref: CardRef, voteId: string): void {
  const { db } = deps.database;
  write(deps, (_tx, changes) => {
    const target = loadTarget(db, ref);
    const row = visible(target.access, findVote(db, target.card.id, voteId));
    authorize(target.access, voteAction(target));
    authorize(target.access, { manage_feedback: { authorId: row.userId } });
    deleteVote(db, row.id);
    changes.record({ workshopId: ref.workshopId, action: 'removeVote', userId: ref.userId, change: { vote: onCard(toVote(row), row.cardId) } });
  });
}

/**
 * What a voter may still spend on one side of the workshop-wide budget (CONTRACT §7): the limit
 * less what they spent, or no end when the limit is -1. Budget checks and participation's "has
 * voted all" both read it here.
 */
export function workshopBudgetLeft(limit: number, spent: number): number {
  return limit === -1 ? Number.POSITIVE_INFINITY : limit - spent;
}

/**
 * CONTRACT §7: on one card a user's positive values sum to at most `max_positive` and their
 * negative magnitudes to at most `max_negative`; across the workshop likewise against
 * `vote_limit.positive` / `.negative` unless -1. Runs in the write transaction, so concurrent
 * votes cannot overspend.
 */
function requireWithinBudget(
  db: Db,
  workshop: WorkshopRow,
  vote: { cardId: string; userId: string; value: number; replacing?: number },
): void {
  const side = vote.value > 0 ? 'positive' : 'negative';
  const points = Math.abs(vote.value);
  const perCard = side === 'positive' ? workshop.voteMaxPositive : workshop.voteMaxNegative;
  const perWorkshop = side === 'positive' ? workshop.votePositive : workshop.voteNegative;
  const replaced = vote.replacing;
  if (cardSpendingOf(db, { cardId: vote.cardId, userId: vote.userId, replaced })[side] + points > perCard) {
    throw new AppError('vote_limit_reached', `This vote would put more than ${perCard} ${side} points of its voter on this card.`);
  }
  if (perWorkshop !== -1 && points > workshopBudgetLeft(perWorkshop, workshopSpendingOf(db, { workshopId: workshop.id, userId: vote.userId, replaced })[side])) {
    throw new AppError('vote_limit_reached', `This vote would put more than ${perWorkshop} ${side} points of its voter on this workshop's cards.`);
  }
}
