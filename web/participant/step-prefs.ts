import type { Step, Workshop } from 'workshop-sdk';

/*
 * What the current step lets the participant do, and the rating criteria it may ask for: the
 * rights the page draws its controls from.
 */

/** A criterion as the workshop carries it, with the ratings the reader may see. */
export type Criterion = Workshop['criteria'][number];

export type Prefs = Pick<
  Step['prefs'],
  | 'allow_add_idea'
  | 'allow_add_cluster'
  | 'allow_vote_on_ideas'
  | 'allow_vote_on_clusters'
  | 'allow_display_votes'
  | 'allow_rate'
  | 'allow_comment'
  | 'allow_items'
  | 'allow_attachment'
  | 'allow_edit'
  | 'allow_delete'
>;

/**
 * A workshop without steps lets participants do everything on their own cards
 * (docs/api.md#who-may-do-what); one in its lobby, nothing (`inLobby`, docs/api.md#the-lobby).
 */
export const DEFAULT_PREFS: Prefs = {
  allow_add_idea: true,
  allow_add_cluster: true,
  allow_vote_on_ideas: true,
  allow_vote_on_clusters: true,
  allow_display_votes: true,
  allow_rate: true,
  allow_comment: true,
  allow_items: true,
  allow_attachment: true,
  allow_edit: 'their',
  allow_delete: 'their',
};
