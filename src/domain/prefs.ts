import * as v from 'valibot';
import type { StepPrefs } from './permissions';
import { said } from '../i18n/valibot';

// The valibot shapes of a step's `prefs`; what they mean is decided in `access/rules.ts`.

const scope = v.picklist(['none', 'their', 'all']);
const cardsVisible = v.picklist(['all', 'own'], said('error.validation.all_or_own'));
const authors = v.picklist(['shown', 'hidden_from_participants', 'hidden'], said('error.validation.authors_shown'));

/** Who may see the author of a card, comment or item: the `authors` pref of the step it was written under. */
export const AuthorVisibilityOutput = authors;

export const PrefsInput = v.object({
  allow_add_idea: v.optional(v.boolean()),
  allow_add_cluster: v.optional(v.boolean()),
  allow_items: v.optional(v.boolean()),
  allow_vote_on_ideas: v.optional(v.boolean()),
  allow_vote_on_clusters: v.optional(v.boolean()),
  allow_display_votes: v.optional(v.boolean()),
  allow_rate: v.optional(v.boolean()),
  allow_display_ratings: v.optional(v.boolean()),
  allow_comment: v.optional(v.boolean()),
  allow_attachment: v.optional(v.boolean()),
  allow_edit: v.optional(scope),
  allow_delete: v.optional(scope),
  /** `own`: participants see only their own cards and facilitators' while the step is current. */
  cards_visible: v.optional(cardsVisible),
  /** Who sees the author of cards, comments and items written while the step is current. */
  authors: v.optional(authors),
});
export type PrefsInput = v.InferOutput<typeof PrefsInput>;

export const PrefsOutput = v.object({
  allow_add_idea: v.boolean(),
  allow_add_cluster: v.boolean(),
  allow_items: v.boolean(),
  allow_vote_on_ideas: v.boolean(),
  allow_vote_on_clusters: v.boolean(),
  allow_display_votes: v.boolean(),
  allow_rate: v.boolean(),
  allow_display_ratings: v.boolean(),
  allow_comment: v.boolean(),
  allow_attachment: v.boolean(),
  allow_edit: scope,
  allow_delete: scope,
  cards_visible: cardsVisible,
  authors,
});

export function mergePrefs(base: StepPrefs, patch: PrefsInput | undefined): StepPrefs {
  const merged: StepPrefs = { ...base };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}
