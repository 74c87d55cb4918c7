import type { Db } from '../../db/database';
import { notFound } from '../../http/errors';
import { loadAccess, type LoadedAccess } from './load';
import { seesCard } from './visibility';
import { cardOfWorkshop, cardsOfWorkshops } from './repo';
import type { CardRef } from '../../domain/card-ref';

/*
 * Shared by every kind of card feedback (votes, ratings, items, comments, attachments): they all
 * live under /v1/workshops/:workshop_id/cards/:card_id/… and start from the same two checks.
 */

export interface FeedbackTarget {
  access: LoadedAccess;
  /** `userId`: the card's author, whom private writing goes by (docs/api.md#private-writing-and-anonymous-authors). */
  card: { id: string; type: 'idea' | 'cluster'; userId: string | null };
}

/**
 * The caller's access to the workshop (404 for strangers) and the card, which must belong to that
 * workshop and be one the caller may see now (404 otherwise: a private step hides other
 * participants' cards and all about them). Call inside the `write` callback for writes, so the
 * checks and the write are one transaction.
 */
export async function loadTarget(db: Db, ref: CardRef): Promise<FeedbackTarget> {
  const access = await loadAccess(db, ref.workshopId, ref.caller);
  const card = await cardOfWorkshop(db, ref.workshopId, ref.cardId);
  if (!card || !(await seesCard(db, access, card.userId))) throw notFound('card');
  return { access, card };
}

/**
 * The cards asked about that belong to the workshop named with them (for a batch of feedback), by
 * id; the others left out.
 */
export async function loadCardTargets(
  db: Db,
  asked: ReadonlyArray<{ workshopId: string; cardId: string }>,
): Promise<Map<string, FeedbackTarget['card']>> {
  if (asked.length === 0) return new Map();
  const pairs = [...new Map(asked.map((a) => [a.cardId, [a.workshopId, a.cardId] as const])).values()];
  const rows = await cardsOfWorkshops(db, pairs);
  return new Map(rows.map(({ id, type, userId }) => [id, { id, type, userId }]));
}

/** Names the card a piece of feedback is on, for event payloads. */
export function onCard<T extends object>(output: T, cardId: string): T & { card_id: string } {
  return { ...output, card_id: cardId };
}
