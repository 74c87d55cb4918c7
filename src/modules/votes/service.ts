import { newId, nowIso } from '../../db/columns';
import { AppError, notFound } from '../../http/errors';
import type { Db } from '../../db/database';
import { writeWorkshop, type WriteDeps } from '../../db/write';
import { writeBatched, type BatchItem, type BatchOutcome } from '../../db/write-batched';
import { diffFields } from '../../domain/events';
import type { ChangeRecorder } from '../../domain/recorder';
import { authorize, seesAllVotes } from '../access/rules';
import { accessKey, findAccesses, requireSsoAllows, type LoadedAccess, type WorkshopRow } from '../access/load';
import { loadCardTargets, loadTarget, onCard, type FeedbackTarget } from '../access/feedback-target';
import type { CardRef } from '../../domain/card-ref';
import { seesCard, VisibilityMemo } from '../access/visibility';
import {
  deleteVote,
  findVote,
  insertVotes,
  listVotes as listVoteRows,
  spendingOf,
  spendingOfValue,
  spendingOfVoters,
  updateVoteValue,
  voterKey,
  type VoteSpending,
} from './repo';
import { toVote, type VoteRow } from './schemas';
import type { VoteOutput } from '../../domain/votes';
import { withDeletedVotersHidden } from '../users/repo';
import { msg } from '../../i18n/messages';

const voteAction = (card: FeedbackTarget['card']) => (card.type === 'idea' ? 'vote_on_ideas' : 'vote_on_clusters');

/** A participant who may not see all votes sees only their own, as if the others did not exist. */
function visible(access: LoadedAccess, row: VoteRow | undefined): VoteRow {
  if (!row || (!seesAllVotes(access) && row.userId !== access.userId)) throw notFound('vote');
  return row;
}

export async function listVotes(deps: WriteDeps, ref: CardRef): Promise<VoteOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  const { db } = deps.database;
  return withDeletedVotersHidden(
    db,
    (await listVoteRows(db, card.id, seesAllVotes(access) ? undefined : access.userId)).map(toVote),
  );
}

export async function getVote(deps: WriteDeps, ref: CardRef, voteId: string): Promise<VoteOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  const [vote] = await withDeletedVotersHidden(deps.database.db, [
    toVote(visible(access, await findVote(deps.database.db, card.id, voteId))),
  ]);
  return vote!;
}

/**
 * Votes arrive in bursts: those that arrive together are written in one transaction, whatever
 * workshops they are on (`writeBatched`, `castVotes`).
 */
export function castVote(deps: WriteDeps, ref: CardRef, input: { value: number }): Promise<VoteOutput> {
  return writeBatched(deps, 'votes', ref.workshopId, { ref, value: input.value }, castVotes);
}

interface Cast {
  ref: CardRef;
  value: number;
}

/**
 * A batch of votes, under the locks of their workshops: the voters' access, the cards and the
 * voters' spending are read once for all, each vote is checked in order against what the votes
 * before it spent, and the accepted ones inserted together. A refused vote writes nothing.
 */
async function castVotes(
  tx: Db,
  changes: ChangeRecorder,
  items: ReadonlyArray<BatchItem<Cast>>,
): Promise<Array<BatchOutcome<VoteOutput>>> {
  const refs = items.map(({ input }) => input.ref);
  const accesses = await findAccesses(
    tx,
    refs.map((ref) => ({ workshopId: ref.workshopId, userId: ref.caller.id })),
  );
  const cards = await loadCardTargets(
    tx,
    refs.filter((ref) => accesses.has(accessKey(ref.workshopId, ref.caller.id))),
  );
  const hidden = await cardsHiddenFromVoters(tx, refs, accesses, cards);
  const spending = await spendingOfVoters(
    tx,
    refs
      .filter((ref) => cards.has(ref.cardId))
      .map((ref) => ({ workshopId: ref.workshopId, userId: ref.caller.id, cardId: ref.cardId })),
  );
  const now = nowIso();
  const accepted: Array<{
    index: number;
    row: {
      id: string;
      workshopId: string;
      cardId: string;
      userId: string;
      value: number;
      createdAt: string;
      updatedAt: string;
    };
  }> = [];
  // Accepted votes are answered once inserted, below.
  const outcomes: Array<BatchOutcome<VoteOutput> | undefined> = items.map(({ input: { ref, value } }, index) => {
    try {
      const access = accesses.get(accessKey(ref.workshopId, ref.caller.id));
      if (!access) throw notFound('workshop');
      requireSsoAllows(ref.caller, access.workshop);
      const card = cards.get(ref.cardId);
      if (!card || hidden.has(index)) throw notFound('card');
      authorize(access, voteAction(card));
      const key = voterKey(ref.workshopId, ref.caller.id);
      let voter = spending.get(key);
      if (!voter) spending.set(key, (voter = { workshop: { positive: 0, negative: 0 }, cards: new Map() }));
      const onCard = voter.cards.get(card.id) ?? { positive: 0, negative: 0 };
      requireWithinBudget(access.workshop, { card: onCard, workshop: voter.workshop }, value);
      // Spent as soon as checked: the next vote of the batch is checked against it.
      const added = spendingOfValue(value);
      voter.cards.set(card.id, {
        positive: onCard.positive + added.positive,
        negative: onCard.negative + added.negative,
      });
      voter.workshop = {
        positive: voter.workshop.positive + added.positive,
        negative: voter.workshop.negative + added.negative,
      };
      accepted.push({
        index,
        row: {
          id: newId(),
          workshopId: ref.workshopId,
          cardId: card.id,
          userId: ref.caller.id,
          value,
          createdAt: now,
          updatedAt: now,
        },
      });
      return undefined;
    } catch (error) {
      return { ok: false, error };
    }
  });
  const rows = await insertVotes(
    tx,
    accepted.map(({ row }) => row),
  );
  accepted.forEach(({ index }, n) => {
    const row = rows[n]!;
    const vote = toVote(row);
    changes.record({
      workshopId: row.workshopId,
      action: 'addVote',
      userId: row.userId,
      cardUserId: cards.get(row.cardId)!.userId,
      change: { vote: onCard(vote, row.cardId) },
    });
    outcomes[index] = { ok: true, value: vote };
  });
  return outcomes as Array<BatchOutcome<VoteOutput>>;
}

/**
 * The votes of a batch (by index) on cards their voter may not see now (`seesCard`,
 * docs/api.md#private-writing-and-anonymous-authors).
 */
async function cardsHiddenFromVoters(
  tx: Db,
  refs: readonly CardRef[],
  accesses: ReadonlyMap<string, LoadedAccess>,
  cards: ReadonlyMap<string, FeedbackTarget['card']>,
): Promise<Set<number>> {
  const hidden = new Set<number>();
  const memo = new VisibilityMemo();
  for (const [index, ref] of refs.entries()) {
    const access = accesses.get(accessKey(ref.workshopId, ref.caller.id));
    const card = cards.get(ref.cardId);
    if (access && card && !(await seesCard(tx, access, card.userId, memo))) hidden.add(index);
  }
  return hidden;
}

export function changeVote(
  deps: WriteDeps,
  ref: CardRef,
  voteId: string,
  input: { value?: number | undefined },
): Promise<VoteOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const target = await loadTarget(tx, ref);
    const before = visible(target.access, await findVote(tx, target.card.id, voteId));
    authorize(target.access, voteAction(target.card));
    authorize(target.access, { manage_feedback: { authorId: before.userId } });
    if (input.value === undefined || input.value === before.value) return toVote(before);
    // The old value is given back before the new one is spent; the budget is the owner's.
    const spent = await spendingOf(tx, {
      workshopId: ref.workshopId,
      cardId: before.cardId,
      userId: before.userId,
      replaced: before.value,
    });
    requireWithinBudget(target.access.workshop, spent, input.value);
    const after = await updateVoteValue(tx, before.id, input.value, nowIso());
    const vote = toVote(after);
    changes.record({
      workshopId: ref.workshopId,
      action: 'updateVote',
      userId: ref.caller.id,
      cardUserId: target.card.userId,
      change: { vote: onCard(vote, after.cardId), changes: diffFields(toVote(before), vote, ['value']) },
    });
    return vote;
  });
}

export async function removeVote(deps: WriteDeps, ref: CardRef, voteId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const target = await loadTarget(tx, ref);
    const row = visible(target.access, await findVote(tx, target.card.id, voteId));
    authorize(target.access, voteAction(target.card));
    authorize(target.access, { manage_feedback: { authorId: row.userId } });
    await deleteVote(tx, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeVote',
      userId: ref.caller.id,
      cardUserId: target.card.userId,
      change: { vote: onCard(toVote(row), row.cardId) },
    });
  });
}

/**
 * What a voter may still spend on one side of the workshop-wide budget (docs/api.md#feedback-on-cards): the limit
 * less what they spent, or no end when the limit is -1. Budget checks and participation's "has
 * voted all" both read it here.
 */
export function workshopBudgetLeft(limit: number, spent: number): number {
  return limit === -1 ? Number.POSITIVE_INFINITY : limit - spent;
}

/**
 * Vote budgets (docs/api.md#feedback-on-cards): on one card a user's positive values sum to at most
 * `max_positive` and their negative magnitudes to at most `max_negative`; across the workshop
 * likewise against `vote_limit.positive` / `.negative` unless -1. `spent` is read in the write
 * transaction, under the workshop's lock, so concurrent votes cannot overspend.
 */
function requireWithinBudget(
  workshop: WorkshopRow,
  spent: { card: VoteSpending; workshop: VoteSpending },
  value: number,
): void {
  const side = value > 0 ? 'positive' : 'negative';
  const points = Math.abs(value);
  const perCard = side === 'positive' ? workshop.voteMaxPositive : workshop.voteMaxNegative;
  const perWorkshop = side === 'positive' ? workshop.votePositive : workshop.voteNegative;
  if (spent.card[side] + points > perCard) {
    throw new AppError('vote_limit_reached', msg('error.votes.over_card_budget', { max: perCard, side }));
  }
  if (perWorkshop !== -1 && points > workshopBudgetLeft(perWorkshop, spent.workshop[side])) {
    throw new AppError('vote_limit_reached', msg('error.votes.over_workshop_budget', { max: perWorkshop, side }));
  }
}
