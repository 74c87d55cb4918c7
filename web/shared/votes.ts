import type { MessageId, ValuesArgs } from 'i18n-messages';
import { ApiError, type Workshop, type WorkshopClient } from 'workshop-sdk';

/*
 * A voter's own votes and what they may still spend (docs/api.md#feedback-on-cards), apart from
 * the DOM: a participant's on their page, a facilitator's in the console. The + and − are a
 * counter: + takes back one of the person's negative votes on the card when there is one, else
 * casts +1; − takes back a positive one, else casts −1. Votes still waiting to be sent count as
 * spent, so the buttons and the points left are right offline too.
 */

export type VoteLimit = Workshop['vote_limit'];
export type Direction = 1 | -1;

/** What a voter spent: positive points and negative magnitudes. */
export interface Spent {
  positive: number;
  negative: number;
}

/** The person's own votes that the server confirmed, by card and vote id. */
export class VoteBook {
  private readonly byCard = new Map<string, Map<string, number>>();
  /** Votes known to be withdrawn: an event about them arriving late must not bring them back. */
  private readonly withdrawn = new Set<string>();
  /** True once every card's votes were read (until then the budget is not known). */
  loaded = false;

  add(cardId: string, vote: { id: string; value: number }): void {
    if (this.withdrawn.has(vote.id)) return;
    const votes = this.byCard.get(cardId) ?? new Map<string, number>();
    this.byCard.set(cardId, votes.set(vote.id, vote.value));
  }

  remove(voteId: string): void {
    this.withdrawn.add(voteId);
    for (const votes of this.byCard.values()) votes.delete(voteId);
  }

  /** Forgets a card's votes (the card was deleted, or its votes are about to be read again). */
  forgetCard(cardId: string): void {
    this.byCard.delete(cardId);
  }

  clear(): void {
    this.byCard.clear();
  }

  values(cardId: string): number[] {
    return [...(this.byCard.get(cardId)?.values() ?? [])];
  }

  /** The vote that `direction` takes back on a card, if any: the smallest of the opposite sign. */
  toWithdraw(cardId: string, direction: Direction): string | null {
    let found: [string, number] | null = null;
    for (const [id, value] of this.byCard.get(cardId) ?? []) {
      if (Math.sign(value) !== -direction) continue;
      if (!found || Math.abs(value) < Math.abs(found[1])) found = [id, value];
    }
    return found?.[0] ?? null;
  }

  /** Each card's values with the waiting votes applied in order, as they will be once sent. */
  withWaiting(waiting: Array<{ cardId: string; direction: Direction }>): Map<string, number[]> {
    const result = new Map([...this.byCard].map(([cardId, votes]) => [cardId, [...votes.values()]]));
    for (const { cardId, direction } of waiting) result.set(cardId, afterVote(result.get(cardId) ?? [], direction));
    return result;
  }
}

/** A card's values after one press: the smallest opposite vote taken back, or one point cast. */
export function afterVote(values: number[], direction: Direction): number[] {
  const opposite = values
    .map((value, index) => ({ value, index }))
    .filter(({ value }) => Math.sign(value) === -direction)
    .sort((a, b) => Math.abs(a.value) - Math.abs(b.value))[0];
  if (!opposite) return [...values, direction];
  return values.filter((_, index) => index !== opposite.index);
}

export function spentOf(values: Iterable<number>): Spent {
  const spent = { positive: 0, negative: 0 };
  for (const value of values) {
    if (value > 0) spent.positive += value;
    else spent.negative -= value;
  }
  return spent;
}

/** Positive points left in the workshop, or null when the budget has no end (-1). */
export function pointsLeft(limit: VoteLimit, total: Spent): number | null {
  return limit.positive === -1 ? null : Math.max(0, limit.positive - total.positive);
}

/** Why a press would be refused, for each page to say in its own words. */
export type Refusal =
  | { reason: 'spent' }
  | { reason: 'card_max'; max: number }
  | { reason: 'none_to_take' }
  | { reason: 'negative_spent' }
  | { reason: 'card_min'; max: number };

/**
 * Why a press of `direction` on a card would be refused (the server would answer 409
 * `vote_limit_reached`), or null when it is allowed. Taking a vote back is always allowed.
 */
export function refusalOf(direction: Direction, card: number[], total: Spent, limit: VoteLimit): Refusal | null {
  if (card.some((value) => Math.sign(value) === -direction)) return null;
  const onCard = spentOf(card);
  if (direction === 1) {
    if (limit.positive !== -1 && total.positive + 1 > limit.positive) return { reason: 'spent' };
    if (onCard.positive + 1 > limit.max_positive) return { reason: 'card_max', max: limit.max_positive };
    return null;
  }
  if (limit.negative === 0) return { reason: 'none_to_take' };
  if (limit.negative !== -1 && total.negative + 1 > limit.negative) return { reason: 'negative_spent' };
  if (onCard.negative + 1 > limit.max_negative) return { reason: 'card_min', max: limit.max_negative };
  return null;
}

/** A page's `t`: the console's or the participant page's, each in its own language. */
type Say = <I extends MessageId>(id: I, ...values: ValuesArgs<I>) => string;

/** Why a press is refused (`refusalOf`), said by `say` in the page's language; null when it is allowed. */
export function refusalText(refusal: Refusal | null, say: Say): string | null {
  switch (refusal?.reason) {
    case undefined:
      return null;
    case 'spent':
      return say('common.votes.refusal.spent');
    case 'card_max':
      return say('common.votes.refusal.card_max', { max: refusal.max });
    case 'none_to_take':
      return say('common.votes.refusal.none_to_take');
    case 'negative_spent':
      return say('common.votes.refusal.negative_spent');
    case 'card_min':
      return say('common.votes.refusal.card_min', { max: refusal.max });
  }
}

/** A vote as the live events carry it in their `change`. */
interface VoteChange {
  id: string;
  value: number;
  user_id: string | null;
  card_id: string;
}

/**
 * Takes one logged change into `book`: `voter`'s votes cast or changed, any vote withdrawn, all of
 * them cleared. Returns whether it was about votes.
 */
export function followVote(
  book: VoteBook,
  voter: string,
  action: string,
  change: Record<string, unknown> | undefined,
): boolean {
  const vote = change?.vote as VoteChange | undefined;
  if ((action === 'addVote' || action === 'updateVote') && vote) {
    if (vote.user_id === voter) book.add(vote.card_id, vote);
  } else if (action === 'removeVote' && vote) book.remove(vote.id);
  else if (action === 'removeVotes') book.clear();
  else return false;
  return true;
}

/**
 * Reads `voter`'s votes on `cardIds` into `book`, `atOnce` cards at a time: there is no list of
 * one's votes, so each card's list is read. A card deleted meanwhile holds none.
 */
export async function readOwnVotes(
  client: WorkshopClient,
  workshopId: string,
  voter: string,
  cardIds: string[],
  book: VoteBook,
  atOnce: number,
): Promise<void> {
  const queue = [...cardIds];
  const reader = async () => {
    for (let cardId = queue.shift(); cardId !== undefined; cardId = queue.shift()) {
      try {
        const votes = await client.get('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
          params: { path: { workshop_id: workshopId, card_id: cardId } },
        });
        for (const vote of votes) if (vote.user_id === voter) book.add(cardId, vote);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: atOnce }, reader));
}
