import type { Db } from '../db/database';
import type { VisibilityMemo } from '../modules/access/visibility';
import type { CardOutput } from '../domain/cards';
import { scoreReadings } from '../modules/cards/summaries';
import type { WorkshopAction, WorkshopEvent } from '../domain/events';
import { EVERYONE, FACILITATORS, participant, participantsExcept, type Audience, type Delivery } from './audience';
import { readAt } from '../modules/timer/schemas';
import type { Sequenced } from './events';

/*
 * One renderer per logged action: what socket events the change produces, for whom. The compiler
 * holds this map to the action list (`domain/events.ts`), so a new action cannot go
 * unrendered. What a reader may see is asked of the modules that own the data (card scores of
 * `cards/summaries.ts`, display prefs of `access/load.ts`); participants never receive other
 * people's hidden votes or ratings, only the bare `seq` and `action`, so their sequence has no hole.
 */

/** `memo` keeps the workshop's current prefs and facilitators for the length of one broadcast or replay. */
export type Renderer<A extends WorkshopAction> = (
  event: WorkshopEvent<A>,
  db: Db,
  memo: VisibilityMemo,
) => Delivery[] | Promise<Delivery[]>;
export type Renderers = { readonly [A in WorkshopAction]: Renderer<A> };

const head = (event: WorkshopEvent): Sequenced => ({ seq: event.seq, workshop_id: event.workshopId });

/** The log's own words: `workshop:event` with the action and its change. */
function logged(event: WorkshopEvent, audience: Audience = EVERYONE): Delivery {
  return { audience, event: 'workshop:event', payload: { ...head(event), action: event.action, change: event.change } };
}

const everyone: Renderer<WorkshopAction> = (event) => [logged(event)];

/** The change for everyone, who reads the workshop again (`reload: true`): it is too large to describe. */
const readAllAgain: Renderer<WorkshopAction> = (event) => [
  {
    audience: EVERYONE,
    event: 'workshop:event',
    payload: { ...head(event), action: event.action, change: event.change, reload: true },
  },
];

/** The change for facilitators; the bare sequence number for participants. */
const facilitatorsOnly: Renderer<WorkshopAction> = (event) => [
  logged(event, FACILITATORS),
  bare(event, participantsExcept([])),
];

function exportDelivery(
  event: WorkshopEvent<'addExport' | 'updateExport' | 'removeExport'>,
  name: 'export:updated' | 'export:deleted',
): Delivery[] {
  return [
    { audience: FACILITATORS, event: name, payload: { ...head(event), export: event.change.export } },
    bare(event, participantsExcept([])),
  ];
}

/** The bare sequence number and action: for readers who may not see the change, so their sequence has no hole. */
export function bare(event: WorkshopEvent, audience: Audience): Delivery {
  return { audience, event: 'workshop:event', payload: { ...head(event), action: event.action } };
}

/**
 * A step change, or an edit of the current step, that moved whose cards participants read
 * (`cards_visible`): each participant is told to read the cards again (`reload: true`), in the
 * change's `seq`, after its other events. At the reveal the cards they could not see arrived bare,
 * so a client learns of them only by reading again; when the cards are hidden again, reading again
 * drops them. Facilitators read every card all along.
 */
function readCardsAgain(event: WorkshopEvent<'changeStep' | 'updateStep'>, withChange: boolean): Delivery[] {
  if (!event.change.cards_visible) return [];
  const told = withChange ? logged(event, participantsExcept([])) : bare(event, participantsExcept([]));
  return [{ ...told, payload: { ...told.payload, reload: true } } as Delivery];
}

/** Content for facilitators and the feedback's author; the bare sequence number for other participants. */
function ownedBy(event: WorkshopEvent, ownerId: string, full: Delivery, own: Delivery): Delivery[] {
  return [full, own, bare(event, participantsExcept([ownerId]))];
}

/** A card rendered for each reader: the full score, or each participant's own votes when those are hidden. */
async function cardDeliveries(
  db: Db,
  memo: VisibilityMemo,
  event: WorkshopEvent,
  card: CardOutput,
  render: (card: CardOutput) => Delivery,
): Promise<Delivery[]> {
  const withScore = (audience: Audience, score: number): Delivery => ({
    ...render({ ...card, summary: { ...card.summary, score } }),
    audience,
  });
  const readings = await scoreReadings(db, event.workshopId, card.id, memo);
  if (readings.shared) return [withScore(EVERYONE, readings.score)];
  const voters = [...readings.byVoter.keys()];
  return [
    withScore(FACILITATORS, readings.full),
    ...voters.map((userId) => withScore(participant(userId), readings.byVoter.get(userId)!)),
    withScore(participantsExcept(voters), 0),
  ];
}

/** A vote changed a card's score: as each reader may see it (`scoreReadings`). */
const scoreChanged: Renderer<'addVote' | 'updateVote' | 'removeVote'> = async (event, db, memo) => {
  const { card_id: cardId, user_id: ownerId } = event.change.vote;
  const scored = (audience: Audience, score: number): Delivery => ({
    audience,
    event: 'score:changed',
    payload: { ...head(event), card_id: cardId, score },
  });
  const readings = await scoreReadings(db, event.workshopId, cardId, memo);
  if (readings.shared) return [scored(EVERYONE, readings.score)];
  // A deleted account's vote (replayed after the deletion) is nobody's now: for facilitators only.
  if (ownerId === null) return [scored(FACILITATORS, readings.full), bare(event, participantsExcept([]))];
  return ownedBy(
    event,
    ownerId,
    scored(FACILITATORS, readings.full),
    scored(participant(ownerId), readings.byVoter.get(ownerId) ?? 0),
  );
};

/** A rating is everyone's to see unless the current step hides others' ratings. */
const ratingChanged: Renderer<'addRating' | 'updateRating' | 'removeRating'> = async (event, db, memo) => {
  if ((await memo.prefs(db, event.workshopId)).allow_display_ratings) return [logged(event)];
  const ownerId = event.change.rating.user_id;
  if (ownerId === null) return [logged(event, FACILITATORS), bare(event, participantsExcept([]))];
  return ownedBy(event, ownerId, logged(event, FACILITATORS), logged(event, participant(ownerId)));
};

export const RENDERERS: Renderers = {
  createWorkshop: everyone,
  updateWorkshop: (event) => {
    const { workshop, changes } = event.change;
    // Criteria carry ratings that not every reader may see; this rendering goes to everyone.
    const { criteria: _perReader, ...shared } = workshop;
    const deliveries: Delivery[] = [
      { audience: EVERYONE, event: 'workshop:updated', payload: { ...head(event), workshop: shared, changes } },
    ];
    if ('view' in changes || 'force_sync' in changes) {
      deliveries.push({
        audience: EVERYONE,
        event: 'view:changed',
        payload: { ...head(event), view: workshop.view, force_sync: workshop.force_sync },
      });
    }
    return deliveries;
  },
  removeWorkshop: everyone,
  changeStep: (event) => [
    { audience: EVERYONE, event: 'step:changed', payload: { ...head(event), step: event.change.step } },
    {
      audience: EVERYONE,
      event: 'view:changed',
      payload: { ...head(event), view: event.change.workshop.view, force_sync: event.change.workshop.force_sync },
    },
    ...readCardsAgain(event, false),
  ],

  addStep: everyone,
  updateStep: (event) =>
    event.change.cards_visible ? [logged(event, FACILITATORS), ...readCardsAgain(event, true)] : [logged(event)],
  removeStep: everyone,
  addIllustration: everyone,
  updateIllustration: everyone,
  removeIllustration: everyone,

  addCard: (event, db, memo) =>
    cardDeliveries(db, memo, event, event.change.card, (card) => ({
      audience: EVERYONE,
      event: 'card:created',
      payload: { ...head(event), card },
    })),
  updateCard: (event, db, memo) =>
    cardDeliveries(db, memo, event, event.change.card, (card) => ({
      audience: EVERYONE,
      event: 'card:updated',
      payload: { ...head(event), card, changes: event.change.changes },
    })),
  removeCard: (event) => {
    const { card, removed_ids } = event.change;
    return [
      {
        audience: EVERYONE,
        event: 'card:deleted',
        payload: { ...head(event), card_id: card.id, removed_ids: [card.id, ...removed_ids], merged_into: null },
      },
    ];
  },
  mergeCards: async (event, db, memo) => {
    const { card, merged_ids } = event.change;
    return [
      ...(await cardDeliveries(db, memo, event, card, (c) => ({
        audience: EVERYONE,
        event: 'card:created',
        payload: { ...head(event), card: c },
      }))),
      ...merged_ids.map((id): Delivery => ({
        audience: EVERYONE,
        event: 'card:deleted',
        payload: { ...head(event), card_id: id, removed_ids: [id], merged_into: card.id },
      })),
    ];
  },
  importCards: readAllAgain,
  moveCards: everyone,

  addVote: scoreChanged,
  updateVote: scoreChanged,
  removeVote: scoreChanged,
  removeVotes: (event) => [
    { audience: EVERYONE, event: 'score:changed', payload: { ...head(event), card_id: null, score: 0 } },
  ],

  addRating: ratingChanged,
  updateRating: ratingChanged,
  removeRating: ratingChanged,
  removeRatings: everyone,

  addItem: everyone,
  updateItem: everyone,
  removeItem: everyone,
  removeItems: everyone,

  addComment: (event) => [
    { audience: EVERYONE, event: 'comment:created', payload: { ...head(event), comment: event.change.comment } },
  ],
  removeComment: everyone,
  removeComments: everyone,

  addAttachment: everyone,
  removeAttachment: everyone,
  removeAttachments: everyone,

  addCriterium: everyone,
  updateCriterium: everyone,
  removeCriterium: everyone,
  addSection: everyone,
  updateSection: everyone,
  removeSection: everyone,
  addCanvas: everyone,
  removeCanvas: everyone,
  updateZone: everyone,

  addMember: everyone,
  updateMember: everyone,
  // What the deleted account wrote, anywhere in the workshop, now has no author: too much to say card by card.
  removeUser: readAllAgain,
  addMessage: everyone,

  // Invitations name people by e-mail: for facilitators only, like the resource; participants get
  // the bare sequence number, so their sequence has no hole.
  addInvitation: facilitatorsOnly,
  updateInvitation: facilitatorsOnly,
  removeInvitation: facilitatorsOnly,

  // Read again as it is sent: the server's clock now, and what is left now (also for a replay).
  changeTimer: (event) => [
    { audience: EVERYONE, event: 'timer:changed', payload: { ...head(event), timer: readAt(event.change.timer) } },
  ],

  // Exports are the facilitators' (their links download without a token); participants get the
  // bare sequence number, so their sequence has no hole.
  addExport: (event) => exportDelivery(event, 'export:updated'),
  updateExport: (event) => exportDelivery(event, 'export:updated'),
  removeExport: (event) => exportDelivery(event, 'export:deleted'),
};
