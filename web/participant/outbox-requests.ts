import type { Comment, Item, WorkshopClient } from 'workshop-sdk';
import type { LiveWorkshop } from 'workshop-sdk/live';
import { t } from '../shared/i18n';
import { applyToCardList } from './card-lists';
import type { Intent, Request } from './outbox';
import type { VoteBook } from '../shared/votes';
import { gone } from './write-refusals';

/*
 * What each of the person's presses waiting in the outbox becomes as a request, and how that
 * request is sent and its answer taken into the session.
 */

/** The key of one of the person's ratings: the card and the criterion. */
export const ratingKey = (cardId: string, criteriumId: string) => `${cardId} ${criteriumId}`;

/** What of the participant's session the requests read and write. */
export interface RequestContext {
  readonly api: WorkshopClient;
  readonly workshopId: string;
  readonly live: LiveWorkshop;
  readonly votes: VoteBook;
  readonly ratings: Map<string, { id: string; value: number }>;
  readonly comments: Map<string, Comment[]>;
  readonly arriving: Map<string, string>;
  loadVotes(): void;
  rating(cardId: string, criteriumId: string): { id: string; value: number } | undefined;
  wroteOnCard(kind: 'items', cardId: string, written: Item): void;
}

/**
 * The request for an intent, from what is known when it is first sent (every earlier write
 * answered); null for a press on a vote before the person's votes are counted (after a reload).
 */
export function requestFor(session: RequestContext, intent: Intent): Request | null {
  switch (intent.kind) {
    case 'card':
      return { op: 'createCard', type: intent.type, title: intent.title, parent: intent.parent };
    case 'vote': {
      if (!session.votes.loaded) {
        session.loadVotes();
        return null;
      }
      const voteId = session.votes.toWithdraw(intent.cardId, intent.direction);
      return voteId
        ? { op: 'withdrawVote', cardId: intent.cardId, voteId }
        : { op: 'castVote', cardId: intent.cardId, value: intent.direction };
    }
    case 'rate': {
      const mine = session.rating(intent.cardId, intent.criteriumId);
      return mine
        ? { op: 'changeRating', cardId: intent.cardId, ratingId: mine.id, value: intent.value }
        : { op: 'rate', ...intent };
    }
    case 'comment':
      return { op: 'comment', cardId: intent.cardId, content: intent.content };
    case 'item':
      return { op: 'addItem', cardId: intent.cardId, sectionId: intent.sectionId, content: intent.content };
    case 'edit':
      return { op: 'editCard', cardId: intent.cardId, title: intent.title };
    case 'delete':
      return { op: 'deleteCard', cardId: intent.cardId };
  }
}

/** Sends one request with its key (the same at every attempt) and takes the answer in. */
export async function sendRequest(session: RequestContext, request: Request, key: string): Promise<void> {
  const headers = { 'Idempotency-Key': key };
  const workshop_id = session.workshopId;
  switch (request.op) {
    case 'createCard': {
      const { type, title, parent } = request;
      const body = parent ? { type, title, parent } : { type, title };
      const card = await session.api.post('/v1/workshops/{workshop_id}/cards', {
        params: { path: { workshop_id } },
        body,
        headers,
      });
      if (!session.live.state.cards.some(({ id }) => id === card.id))
        session.arriving.set(
          card.id,
          t(type === 'idea' ? 'participant.outbox.label.idea_sent' : 'participant.outbox.label.cluster', { title }),
        );
      return;
    }
    case 'castVote': {
      const path = { workshop_id, card_id: request.cardId };
      session.votes.add(
        request.cardId,
        await session.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
          params: { path },
          body: { value: request.value },
          headers,
        }),
      );
      return;
    }
    case 'withdrawVote': {
      const path = { workshop_id, card_id: request.cardId, id: request.voteId };
      await session.api
        .delete('/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}', { params: { path }, headers })
        .catch(gone);
      session.votes.remove(request.voteId);
      return;
    }
    case 'rate': {
      const path = { workshop_id, card_id: request.cardId };
      const body = { criterium_id: request.criteriumId, value: request.value };
      const rating = await session.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
        params: { path },
        body,
        headers,
      });
      session.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
      return;
    }
    case 'changeRating': {
      const path = { workshop_id, card_id: request.cardId, id: request.ratingId };
      const rating = await session.api.put('/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}', {
        params: { path },
        body: { value: request.value },
        headers,
      });
      session.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
      return;
    }
    case 'comment': {
      const path = { workshop_id, card_id: request.cardId };
      const comment = await session.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
        params: { path },
        body: { content: request.content },
        headers,
      });
      applyToCardList(session.comments, request.cardId, comment);
      return;
    }
    case 'addItem': {
      const path = { workshop_id, card_id: request.cardId };
      const body = { section_id: request.sectionId, content: request.content };
      session.wroteOnCard(
        'items',
        request.cardId,
        await session.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/items', {
          params: { path },
          body,
          headers,
        }),
      );
      return;
    }
    case 'editCard': {
      const path = { workshop_id, id: request.cardId };
      await session.api.put('/v1/workshops/{workshop_id}/cards/{id}', {
        params: { path },
        body: { title: request.title },
        headers,
      });
      return;
    }
    case 'deleteCard': {
      const path = { workshop_id, id: request.cardId };
      await session.api.delete('/v1/workshops/{workshop_id}/cards/{id}', { params: { path }, headers }).catch(gone);
      return;
    }
  }
}
