import * as v from 'valibot';

export type EditScope = 'none' | 'their' | 'all';

/** What participants may do while a step is current (CONTRACT §6). */
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
}) as StepPrefs;

const scope = v.picklist(['none', 'their', 'all']);

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
});

export function mergePrefs(base: StepPrefs, patch: PrefsInput | undefined): StepPrefs {
  const merged: StepPrefs = { ...base };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}
