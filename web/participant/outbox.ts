import { Outbox as SharedOutbox, type Waiting as SharedWaiting } from '../shared/outbox';
import type { Direction } from '../shared/votes';

/*
 * The participant page's writes waiting to be sent: the shared outbox (web/shared/outbox.ts,
 * with its Idempotency-Keys and its retries) holding the page's presses.
 */

/** What the person asked for. */
export type Intent =
  | { kind: 'card'; type: 'idea' | 'cluster'; title: string; parent: string | null }
  | { kind: 'vote'; cardId: string; direction: Direction }
  | { kind: 'rate'; cardId: string; criteriumId: string; value: number }
  | { kind: 'comment'; cardId: string; content: string }
  | { kind: 'item'; cardId: string; sectionId: string; content: string }
  | { kind: 'edit'; cardId: string; title: string }
  | { kind: 'delete'; cardId: string };

/**
 * The request an intent became when it was first sent, worked out from what was known then (a
 * − takes back which vote, a rating is new or a change). Kept with the key and sent again as is.
 */
export type Request =
  | { op: 'createCard'; type: 'idea' | 'cluster'; title: string; parent: string | null }
  | { op: 'castVote'; cardId: string; value: Direction }
  | { op: 'withdrawVote'; cardId: string; voteId: string }
  | { op: 'rate'; cardId: string; criteriumId: string; value: number }
  | { op: 'changeRating'; cardId: string; ratingId: string; value: number }
  | { op: 'comment'; cardId: string; content: string }
  | { op: 'addItem'; cardId: string; sectionId: string; content: string }
  | { op: 'editCard'; cardId: string; title: string }
  | { op: 'deleteCard'; cardId: string };

export type Waiting = SharedWaiting<Intent, Request>;

export class Outbox extends SharedOutbox<Intent, Request> {
  /** The intents of one kind about one card still waiting, oldest first. */
  waitingOn<K extends Exclude<Intent['kind'], 'card'>>(kind: K, cardId: string): Array<Extract<Intent, { kind: K }>> {
    return this.items.flatMap(({ intent }) =>
      intent.kind === kind && 'cardId' in intent && intent.cardId === cardId
        ? [intent as Extract<Intent, { kind: K }>]
        : [],
    );
  }
}
