import type { Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { AppError, notFound } from '../../http/errors';
import { diffFields, writeSoon, writeWorkshop, type WriteDeps } from '../events/recorder';
import { authorize, seesAllVotes } from '../access/rules';
import type { LoadedAccess, WorkshopRow } from '../access/load';
import { loadTarget, onCard, type CardRef, type FeedbackTarget } from '../cards/feedback-target';
import { deleteVote, findVote, insertVote, listVotes as listVoteRows, spendingOf, updateVoteValue } from './repo';
import { toVote, type VoteOutput, type VoteRow } from './schemas';

const voteAction = (target: FeedbackTarget) => (target.card.type === 'idea' ? 'vote_on_ideas' : 'vote_on_clusters');

/** A participant who may not see all votes sees only their own, as if the others did not exist. */
function visible(access: LoadedAccess, row: VoteRow | undefined): VoteRow {
  if (!row || (!seesAllVotes(access) && row.userId !== access.userId)) throw notFound('Vote');
  return row;
}

export async function listVotes(deps: WriteDeps, ref: CardRef): Promise<VoteOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return (await listVoteRows(deps.database.db, card.id, seesAllVotes(access) ? undefined : access.userId)).map(toVote);
}

export async function getVote(deps: WriteDeps, ref: CardRef, voteId: string): Promise<VoteOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return toVote(visible(access, await findVote(deps.database.db, card.id, voteId)));
}

/** Votes arrive in bursts: they are written together, one commit for the votes of a moment (`writeSoon`). */
export function castVote(deps: WriteDeps, ref: CardRef, input: { value: number }): Promise<VoteOutput> {
  return writeSoon(deps, ref.workshopId, async (tx, changes) => {
    const target = await loadTarget(tx, ref);
    authorize(target.access, voteAction(target));
    await requireWithinBudget(tx, target.access.workshop, { cardId: target.card.id, userId: ref.userId, value: input.value });
    const row = await insertVote(tx, { id: newId(), workshopId: ref.workshopId, cardId: target.card.id, userId: ref.userId, value: input.value, now: nowIso() });
    const vote = toVote(row);
    changes.record({ workshopId: ref.workshopId, action: 'addVote', userId: ref.userId, change: { vote: onCard(vote, row.cardId) } });
    return vote;
  });
}

export function changeVote(deps: WriteDeps, ref: CardRef, voteId: string, input: { value?: number | undefined }): Promise<VoteOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const target = await loadTarget(tx, ref);
    const before = visible(target.access, await findVote(tx, target.card.id, voteId));
    authorize(target.access, voteAction(target));
    authorize(target.access, { manage_feedback: { authorId: before.userId } });
    if (input.value === undefined || input.value === before.value) return toVote(before);
    // The old value is given back before the new one is spent; the budget is the owner's.
    await requireWithinBudget(tx, target.access.workshop, { cardId: before.cardId, userId: before.userId, value: input.value, replacing: before.value });
    const after = await updateVoteValue(tx, before.id, input.value, nowIso());
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

export async function removeVote(deps: WriteDeps, ref: CardRef, voteId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const target = await loadTarget(tx, ref);
    const row = visible(target.access, await findVote(tx, target.card.id, voteId));
    authorize(target.access, voteAction(target));
    authorize(target.access, { manage_feedback: { authorId: row.userId } });
    await deleteVote(tx, row.id);
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
async function requireWithinBudget(
  db: Db,
  workshop: WorkshopRow,
  vote: { cardId: string; userId: string; value: number; replacing?: number },
): Promise<void> {
  const side = vote.value > 0 ? 'positive' : 'negative';
  const points = Math.abs(vote.value);
  const perCard = side === 'positive' ? workshop.voteMaxPositive : workshop.voteMaxNegative;
  const perWorkshop = side === 'positive' ? workshop.votePositive : workshop.voteNegative;
  const spent = await spendingOf(db, { workshopId: workshop.id, cardId: vote.cardId, userId: vote.userId, replaced: vote.replacing });
  if (spent.card[side] + points > perCard) {
    throw new AppError('vote_limit_reached', `This vote would put more than ${perCard} ${side} points of its voter on this card.`);
  }
  if (perWorkshop !== -1 && points > workshopBudgetLeft(perWorkshop, spent.workshop[side])) {
    throw new AppError('vote_limit_reached', `This vote would put more than ${perWorkshop} ${side} points of its voter on this workshop's cards.`);
  }
}
