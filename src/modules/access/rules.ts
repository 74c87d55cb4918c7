import { AppError, forbidden } from '../../http/errors';
import { msg, type Message } from '../../i18n/messages';
import type { Action, WorkshopAccess, WorkshopRole } from '../../domain/permissions';

/*
 * Who may do what in a workshop (docs/api.md#who-may-do-what), in one place: the participant rights a step grants
 * (`StepPrefs`; none in the lobby), the actions a member may try (`Action`), the boolean question
 * (`may`) and the refusal that answers a request (`authorize`). Everything that asks "may this
 * user do X on this workshop now" asks here, REST, Socket.IO and the Yjs documents alike.
 */

/** What a participant is told of a write in the lobby (docs/api.md#the-lobby). */
const lobbyRefusal = () => msg('error.access.lobby');

/** Whether the caller may do `action` now; an archived workshop refuses every write (see `allowArchived`). */
export function may(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean } = {}): boolean {
  return refusal(access, action, options) === null;
}

/**
 * The throwing form of `may`, for requests: 403 when the role or the current step does not allow
 * `action`, or the workshop is in its lobby; 409 `workshop_archived` for any write to an archived
 * workshop. `allowArchived` is for the one write an archived workshop accepts: the update that
 * sets it running again.
 */
export function authorize(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean } = {}): void {
  const refused = refusal(access, action, options);
  if (refused) throw refused;
}

function refusal(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean }): AppError | null {
  if (action === 'read') return null;
  if (access.role !== 'facilitator') {
    // In the lobby participants write nothing, whatever the defaults would allow.
    if (access.inLobby && action !== 'facilitate') return forbidden(lobbyRefusal());
    if (!participantMay(access, action)) return forbidden(describeRefusal(action));
  }
  if (access.workshop.state === 'archived' && !options.allowArchived) {
    return new AppError('workshop_archived', msg('error.access.archived'));
  }
  return null;
}

/**
 * Refuses `role` to a user who may not hold it in a workshop: a guest takes part as a participant
 * only (docs/api.md#guests), whether promoted or invited, until they sign up (409 `conflict`).
 */
export function requireMayHoldRole(user: { guest: boolean }, role: WorkshopRole): void {
  if (role !== 'participant' && user.guest) throw new AppError('conflict', msg('error.access.guest_role'));
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

function describeRefusal(action: Exclude<Action, 'read'>): Message {
  if (action === 'facilitate') return msg('error.access.facilitators_only');
  if (typeof action === 'object') {
    if ('manage_feedback' in action) return msg('error.access.author_only');
    return 'edit_card' in action ? msg('error.access.step_no_edit') : msg('error.access.step_no_delete');
  }
  // One whole sentence per action in each language (docs/i18n.md#writing-a-message).
  return msg('error.access.step_refuses', { action });
}
