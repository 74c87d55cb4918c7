import { AppError, forbidden } from '../../http/errors';

/*
 * Who may do what in a workshop (docs/api.md#who-may-do-what), in one place: the participant rights a step grants
 * (`StepPrefs`), the actions a member may try (`Action`), the boolean question (`may`) and the
 * refusal that answers a request (`authorize`). Everything that asks "may this user do X on this
 * workshop now" asks here, REST, Socket.IO and the Yjs documents alike.
 */

export type EditScope = 'none' | 'their' | 'all';

/**
 * Whose cards participants see while a step is current
 * (docs/api.md#private-writing-and-anonymous-authors): everyone's, or only their own and
 * facilitators'.
 */
export type CardsVisible = 'all' | 'own';

/**
 * Who sees the author of what is written while a step is current
 * (docs/api.md#private-writing-and-anonymous-authors); a card, comment or item keeps the level it
 * was written under.
 */
export type AuthorVisibility = 'shown' | 'hidden_from_participants' | 'hidden';

/** What participants may do while a step is current (docs/api.md#who-may-do-what). */
export interface StepPrefs {
  allow_add_idea: boolean;
  allow_add_cluster: boolean;
  allow_items: boolean;
  allow_vote_on_ideas: boolean;
  allow_vote_on_clusters: boolean;
  allow_display_votes: boolean;
  allow_rate: boolean;
  allow_display_ratings: boolean;
  allow_comment: boolean;
  allow_attachment: boolean;
  allow_edit: EditScope;
  allow_delete: EditScope;
  cards_visible: CardsVisible;
  authors: AuthorVisibility;
}

/** A step created without prefs, and a workshop with no current step, allow everything on one's own cards. */
export const DEFAULT_PREFS: StepPrefs = Object.freeze({
  allow_add_idea: true,
  allow_add_cluster: true,
  allow_items: true,
  allow_vote_on_ideas: true,
  allow_vote_on_clusters: true,
  allow_display_votes: true,
  allow_rate: true,
  allow_display_ratings: true,
  allow_comment: true,
  allow_attachment: true,
  allow_edit: 'their',
  allow_delete: 'their',
  cards_visible: 'all',
  authors: 'shown',
}) as StepPrefs;

export type WorkshopRole = 'facilitator' | 'participant';

/** Who the caller is in a workshop, and what the current step lets participants do. */
export interface WorkshopAccess {
  workshop: { id: string; state: string };
  userId: string;
  role: WorkshopRole;
  /** The current step's prefs, or the defaults when there is no current step. */
  prefs: StepPrefs;
}

/**
 * Everything a member may try. Participant rights come from the current step's prefs;
 * facilitators may do all of it. `manage_feedback` is changing or removing a vote, rating, item,
 * comment or attachment: its author's, or any for facilitators.
 */
export type Action =
  | 'read'
  | 'facilitate'
  | 'add_idea'
  | 'add_cluster'
  | 'vote_on_ideas'
  | 'vote_on_clusters'
  | 'rate'
  | 'comment'
  | 'items'
  | 'attachment'
  | { edit_card: { authorId: string } }
  | { delete_card: { authorId: string } }
  | { manage_feedback: { authorId: string } };

/** Whether the caller may do `action` now; an archived workshop refuses every write (see `allowArchived`). */
export function may(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean } = {}): boolean {
  return refusal(access, action, options) === null;
}

/**
 * The throwing form of `may`, for requests: 403 when the role or the current step does not allow
 * `action`, 409 `workshop_archived` for any write to an archived workshop. `allowArchived` is for
 * the one write an archived workshop accepts: the update that sets it running again.
 */
export function authorize(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean } = {}): void {
  const refused = refusal(access, action, options);
  if (refused) throw refused;
}

function refusal(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean }): AppError | null {
  if (action === 'read') return null;
  if (access.role !== 'facilitator' && !participantMay(access, action)) return forbidden(describeRefusal(action));
  if (access.workshop.state === 'archived' && !options.allowArchived) {
    return new AppError('workshop_archived', 'This workshop is archived; set its state back to running to change it.');
  }
  return null;
}

export function isFacilitator(access: WorkshopAccess): boolean {
  return access.role === 'facilitator';
}

/** With `allow_display_votes: false` a participant sees only their own votes. */
export function seesAllVotes(access: WorkshopAccess): boolean {
  return access.role === 'facilitator' || access.prefs.allow_display_votes;
}

/** With `allow_display_ratings: false` a participant sees only their own ratings. */
export function seesAllRatings(access: WorkshopAccess): boolean {
  return access.role === 'facilitator' || access.prefs.allow_display_ratings;
}

function participantMay(access: WorkshopAccess, action: Exclude<Action, 'read'>): boolean {
  const p = access.prefs;
  if (typeof action === 'object') {
    if ('manage_feedback' in action) return action.manage_feedback.authorId === access.userId;
    const [scope, authorId] =
      'edit_card' in action ? [p.allow_edit, action.edit_card.authorId] : [p.allow_delete, action.delete_card.authorId];
    return scope === 'all' || (scope === 'their' && authorId === access.userId);
  }
  switch (action) {
    case 'facilitate':
      return false;
    case 'add_idea':
      return p.allow_add_idea;
    case 'add_cluster':
      return p.allow_add_cluster;
    case 'vote_on_ideas':
      return p.allow_vote_on_ideas;
    case 'vote_on_clusters':
      return p.allow_vote_on_clusters;
    case 'rate':
      return p.allow_rate;
    case 'comment':
      return p.allow_comment;
    case 'items':
      return p.allow_items;
    case 'attachment':
      return p.allow_attachment;
  }
}

function describeRefusal(action: Exclude<Action, 'read'>): string {
  if (action === 'facilitate') return 'Only facilitators may do this.';
  if (typeof action === 'object') {
    if ('manage_feedback' in action) return 'Only its author or a facilitator may change this.';
    return 'edit_card' in action
      ? 'The current step does not let you edit this card.'
      : 'The current step does not let you delete this card.';
  }
  return `The current step does not allow this (${action.replaceAll('_', ' ')}).`;
}
