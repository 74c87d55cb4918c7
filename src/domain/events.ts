/*
 * Every kind of logged change, with the payload it carries (docs/api.md#events: the resource after the
 * change under its singular name, the resource before it for removals, and `changes` for
 * updates). Adding an action here makes the compiler ask for everything that must know it: its
 * live rendering (`realtime/renderers.ts`) and its visibility in the log (`ACTION_VISIBILITY`).
 */
import type { AuthorVisibility, CardsVisible } from './permissions';
import type { AttachmentOutput } from './attachments';
import type { CanvasOutput, ZoneOutput } from './canvas';
import type { CardOutput } from './cards';
import type { CommentOutput } from './comments';
import type { CriterionOutput } from './criteria';
import type { ItemOutput } from './items';
import type { RatingOutput } from './ratings';
import type { SectionOutput } from './sections';
import type { IllustrationOutput, StepOutput } from './steps';
import type { VoteOutput } from './votes';
import type { InvitationOutput } from './invitations';
import type { TimerOutput } from './timer';
import type { WorkshopOutput } from './workshops';
import type { UserRoleOutput } from './workshops';

/** `{field: [old, new]}` for each field an update changed. */
export type FieldChanges = Record<string, [unknown, unknown]>;

/** A piece of card feedback in the log names its card. */
export type OnCard<T> = T & { card_id: string };

/** A step's illustration in the log names its step. */
export type StepIllustration = IllustrationOutput & { step_id: string };

/** An export of the workshop, as `GET /v1/workshops/:id/exports/:id` returns it. */
export type ExportOutput = {
  id: string;
  created_at: string;
  type: 'pdf' | 'xlsx' | 'docx' | 'csv' | 'native';
  state: 'pending' | 'success' | 'failed';
  url: string | null;
  message: string | null;
};

/** A card's place, as the workshop's Yjs document holds it. */
export interface PlacementOutput {
  position: number;
  x: number | null;
  y: number | null;
}

/** Each action and its `change` payload. */
export interface WorkshopChanges {
  createWorkshop: { workshop: WorkshopOutput };
  updateWorkshop: { workshop: WorkshopOutput; changes: FieldChanges };
  removeWorkshop: { workshop: WorkshopOutput };
  /**
   * `cards_visible` (there, and on `updateStep` of the current step): `[before, after]` when the
   * change moved whose cards participants read (docs/api.md#private-writing-and-anonymous-authors);
   * participants are told to read the cards again (`cardsVisibleMoved`).
   */
  changeStep: { workshop: WorkshopOutput; step: StepOutput | null; cards_visible?: [CardsVisible, CardsVisible] };

  addStep: { step: StepOutput };
  updateStep: { step: StepOutput; changes: FieldChanges; cards_visible?: [CardsVisible, CardsVisible] };
  removeStep: { step: StepOutput };

  addIllustration: { illustration: StepIllustration };
  updateIllustration: { illustration: StepIllustration; changes: FieldChanges };
  removeIllustration: { illustration: StepIllustration };

  addCard: { card: CardOutput };
  updateCard: { card: CardOutput; changes: FieldChanges };
  /** `removed_ids`: the ideas that went with a removed cluster. */
  removeCard: { card: CardOutput; removed_ids: string[] };
  mergeCards: { card: CardOutput; merged_ids: string[] };
  importCards: { count: number };
  /** Placements a client changed through the workshop's Yjs document: the new values by card id. */
  /**
   * `mover`: present when the mover moved a card they wrote anonymously
   * (docs/api.md#private-writing-and-anonymous-authors), so that the mover is hidden wherever that
   * card's author is, decided when the move is logged.
   */
  moveCards: {
    placements: Record<string, PlacementOutput>;
    mover?: { user_id: string; author_visibility: AuthorVisibility };
  };

  addVote: { vote: OnCard<VoteOutput> };
  updateVote: { vote: OnCard<VoteOutput>; changes: FieldChanges };
  removeVote: { vote: OnCard<VoteOutput> };
  removeVotes: { count: number };

  addRating: { rating: RatingOutput };
  updateRating: { rating: RatingOutput; changes: FieldChanges };
  removeRating: { rating: RatingOutput };
  removeRatings: { count: number };

  addItem: { item: OnCard<ItemOutput> };
  updateItem: { item: OnCard<ItemOutput>; changes: FieldChanges };
  removeItem: { item: OnCard<ItemOutput> };
  removeItems: { count: number };

  addComment: { comment: OnCard<CommentOutput> };
  removeComment: { comment: OnCard<CommentOutput> };
  removeComments: { count: number };

  addAttachment: { attachment: OnCard<AttachmentOutput> };
  removeAttachment: { attachment: OnCard<AttachmentOutput> };
  removeAttachments: { count: number };

  addCriterium: { criterium: CriterionOutput };
  updateCriterium: { criterium: CriterionOutput; changes: FieldChanges };
  removeCriterium: { criterium: CriterionOutput };

  addSection: { section: SectionOutput };
  updateSection: { section: SectionOutput; changes: FieldChanges };
  removeSection: { section: SectionOutput };

  addCanvas: { canvas: CanvasOutput };
  removeCanvas: { canvas: CanvasOutput };
  updateZone: { zone: ZoneOutput; changes: FieldChanges };

  addMember: { member: UserRoleOutput };
  updateMember: { member: UserRoleOutput; changes: FieldChanges };
  /** An account with a part here was deleted (docs/api.md#an-accounts-life); readers read the workshop again. */
  removeUser: { user: { id: null; name: string } };

  addMessage: { message: { content: string; include_me: boolean; recipients: number } };

  addInvitation: { invitation: InvitationOutput };
  /** Sent again (a new link) or accepted. */
  updateInvitation: { invitation: InvitationOutput; changes: FieldChanges };
  removeInvitation: { invitation: InvitationOutput };

  /** The countdown timer changed (docs/api.md#timer); `timer` as it read right after. */
  changeTimer: { timer: TimerOutput; changes: FieldChanges };

  addExport: { export: ExportOutput };
  updateExport: { export: ExportOutput; changes: FieldChanges };
  removeExport: { export: ExportOutput };
}

export type WorkshopAction = keyof WorkshopChanges;

/** What every logged change carries besides its action and payload. */
export interface EventEnvelope {
  id: string;
  workshopId: string;
  /** Increasing per workshop, shared by the log and realtime so clients can spot gaps. */
  seq: number;
  userId: string | null;
  /**
   * The author of the card the change is about (`cardUserIdOf`): private writing
   * (docs/api.md#private-writing-and-anonymous-authors) hides the change from other participants by
   * it. Stored with the event, never sent.
   */
  cardUserId: string | null;
  createdAt: string;
}

/**
 * One change to a workshop, as written to the event log; realtime broadcasts the same object.
 * Narrow it by `action` to reach a typed `change`.
 */
export type WorkshopEvent<A extends WorkshopAction = WorkshopAction> = {
  [K in A]: EventEnvelope & { action: K; change: WorkshopChanges[K] };
}[A];

/** Feedback on one card: its author (whom private writing goes by) is not in the payload, so the write names it. */
export type CardFeedbackAction =
  | 'addVote'
  | 'updateVote'
  | 'removeVote'
  | 'addRating'
  | 'updateRating'
  | 'removeRating'
  | 'addItem'
  | 'updateItem'
  | 'removeItem'
  | 'addComment'
  | 'removeComment'
  | 'addAttachment'
  | 'removeAttachment';

/** A change to one card carries the card, and with it its author. */
export type CardAction = 'addCard' | 'updateCard' | 'removeCard' | 'mergeCards';

/** What a write records: one action with its own payload (and, for feedback, the card's author). */
export type ChangeInput = {
  [K in WorkshopAction]: {
    workshopId: string;
    action: K;
    userId: string | null;
    change: WorkshopChanges[K];
  } & (K extends CardFeedbackAction ? { cardUserId: string | null } : { cardUserId?: undefined });
}[WorkshopAction];

const CARD_ACTIONS: ReadonlySet<WorkshopAction> = new Set<CardAction>([
  'addCard',
  'updateCard',
  'removeCard',
  'mergeCards',
]);

/** The author of the card a change is about; null for a change about no card. */
export function cardUserIdOf(input: ChangeInput): string | null {
  if (input.cardUserId !== undefined) return input.cardUserId;
  if (CARD_ACTIONS.has(input.action)) return (input.change as WorkshopChanges[CardAction]).card.user_id;
  return null;
}

/**
 * Whose eyes a logged change is for. `vote` and `rating`: feedback whose values the current step
 * may hide from other participants (`allow_display_votes` / `allow_display_ratings`); the change
 * belongs to the feedback's author. `facilitators`: facilitator-only resources that name people
 * (invitations carry e-mail addresses). Everything else is for every member.
 */
export type ActionVisibility = 'everyone' | 'vote' | 'rating' | 'facilitators';

export const ACTION_VISIBILITY: { readonly [K in WorkshopAction]: ActionVisibility } = {
  createWorkshop: 'everyone',
  updateWorkshop: 'everyone',
  removeWorkshop: 'everyone',
  changeStep: 'everyone',
  addStep: 'everyone',
  updateStep: 'everyone',
  removeStep: 'everyone',
  addIllustration: 'everyone',
  updateIllustration: 'everyone',
  removeIllustration: 'everyone',
  addCard: 'everyone',
  updateCard: 'everyone',
  removeCard: 'everyone',
  mergeCards: 'everyone',
  importCards: 'everyone',
  moveCards: 'everyone',
  addVote: 'vote',
  updateVote: 'vote',
  removeVote: 'vote',
  removeVotes: 'everyone',
  addRating: 'rating',
  updateRating: 'rating',
  removeRating: 'rating',
  removeRatings: 'everyone',
  addItem: 'everyone',
  updateItem: 'everyone',
  removeItem: 'everyone',
  removeItems: 'everyone',
  addComment: 'everyone',
  removeComment: 'everyone',
  removeComments: 'everyone',
  addAttachment: 'everyone',
  removeAttachment: 'everyone',
  removeAttachments: 'everyone',
  addCriterium: 'everyone',
  updateCriterium: 'everyone',
  removeCriterium: 'everyone',
  addSection: 'everyone',
  updateSection: 'everyone',
  removeSection: 'everyone',
  addCanvas: 'everyone',
  removeCanvas: 'everyone',
  updateZone: 'everyone',
  addMember: 'everyone',
  updateMember: 'everyone',
  removeUser: 'everyone',
  addMessage: 'everyone',
  addInvitation: 'facilitators',
  updateInvitation: 'facilitators',
  removeInvitation: 'facilitators',
  changeTimer: 'everyone',
  // An export holds every vote and rating, and its link downloads without a token.
  addExport: 'facilitators',
  updateExport: 'facilitators',
  removeExport: 'facilitators',
};

/** The actions whose values a step may hide, by kind (for the log's SQL filter). */
export function actionsVisibleAs(visibility: Exclude<ActionVisibility, 'everyone'>): WorkshopAction[] {
  return (Object.keys(ACTION_VISIBILITY) as WorkshopAction[]).filter(
    (action) => ACTION_VISIBILITY[action] === visibility,
  );
}

/** Whether a stored action name is one this version knows (rows are written only by `record`). */
export function isWorkshopAction(action: string): action is WorkshopAction {
  return Object.hasOwn(ACTION_VISIBILITY, action);
}

/** `{field: [old, new]}` for the fields whose value changed; deep-compares JSON values. */
export function diffFields<T extends Record<string, unknown>>(
  before: T,
  after: T,
  fields: readonly (keyof T & string)[],
) {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = [before[field], after[field]];
  }
  return changes;
}
