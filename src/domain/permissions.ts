/*
 * The words the permission rules speak (docs/api.md#who-may-do-what): the participant rights a step grants
 * (`StepPrefs`), the roles, the actions a member may try (`Action`). The rules that answer with them
 * live in `modules/access/rules.ts`.
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

/**
 * A step created without prefs, and a workshop without any step, allow everything on one's own
 * cards. A workshop in its lobby (`WorkshopAccess.inLobby`) shows what these show and lets
 * participants write nothing.
 */
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

/**
 * Who asks, as access to a workshop or an organization decides it: the user, and the organizations
 * the session asking may not reach (docs/integrations.md#requiring-it-for-an-organization): those
 * requiring single sign-on, of which the user is a member, for a session opened with a password or
 * a personal API token made from one. Unset for everyone else, which is nearly everyone.
 */
export interface Caller {
  readonly id: string;
  readonly ssoBarred?: ReadonlySet<string>;
}

/** Whether single sign-on keeps `caller` out of what `owner` owns (a workshop, or the organization itself). */
export function ssoBars(caller: Caller, owner: { ownerType: string; ownerId: string }): boolean {
  return caller.ssoBarred !== undefined && owner.ownerType === 'organization' && caller.ssoBarred.has(owner.ownerId);
}

/** Who the caller is in a workshop, and what the current step lets participants do. */
export interface WorkshopAccess {
  workshop: { id: string; state: string };
  userId: string;
  role: WorkshopRole;
  /** The current step's prefs, or the defaults when there is no current step. */
  prefs: StepPrefs;
  /**
   * Whether the workshop is in its lobby (docs/api.md#the-lobby): it has steps and none is current,
   * so participants read (as the default prefs show) and write nothing until a facilitator starts one.
   */
  inLobby: boolean;
}

/**
 * Everything a member may try. Participant rights come from the current step's prefs (none but
 * `read` in the lobby); facilitators may do all of it. `manage_feedback` is changing or removing
 * a vote, rating, item, comment or attachment: its author's, or any for facilitators.
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
  | { edit_card: { authorId: string | null } }
  | { delete_card: { authorId: string | null } }
  | { manage_feedback: { authorId: string | null } };
