import * as v from 'valibot';

/** How cards are shown on participants' screens; a workshop has one, and each step a default. */
export interface View {
  card: string | null;
  card_sub_view: 'content' | 'votes' | 'ratings-overall' | 'ratings-user';
  sort: 'position' | 'random' | 'score' | 'criterium_average';
  sort_reverse: boolean;
  sort_criterium_id: string | null;
  show: 'cards' | 'bars' | 'bubbles';
  show_clusters: 'all' | 'none' | 'multi';
  show_cluster_ids: string[];
  card_status: 'all' | 'active' | 'aside';
  card_author: 'all' | 'active' | 'other';
}

export const DEFAULT_VIEW: View = Object.freeze({
  card: null,
  card_sub_view: 'content',
  sort: 'position',
  sort_reverse: false,
  sort_criterium_id: null,
  show: 'cards',
  show_clusters: 'all',
  show_cluster_ids: [],
  card_status: 'active',
  card_author: 'all',
}) as View;

const nullableId = v.nullable(v.pipe(v.string(), v.maxLength(64)));

/** Every member optional: used for create and update bodies (`view.*`). */
export const ViewInput = v.object({
  card: v.optional(nullableId),
  card_sub_view: v.optional(v.picklist(['content', 'votes', 'ratings-overall', 'ratings-user'])),
  sort: v.optional(v.picklist(['position', 'random', 'score', 'criterium_average'])),
  sort_reverse: v.optional(v.boolean()),
  sort_criterium_id: v.optional(nullableId),
  show: v.optional(v.picklist(['cards', 'bars', 'bubbles'])),
  show_clusters: v.optional(v.picklist(['all', 'none', 'multi'])),
  show_cluster_ids: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(1000))),
  card_status: v.optional(v.picklist(['all', 'active', 'aside'])),
  card_author: v.optional(v.picklist(['all', 'active', 'other'])),
});
export type ViewInput = v.InferOutput<typeof ViewInput>;

export const ViewOutput = v.object({
  card: v.nullable(v.string()),
  card_sub_view: v.picklist(['content', 'votes', 'ratings-overall', 'ratings-user']),
  sort: v.picklist(['position', 'random', 'score', 'criterium_average']),
  sort_reverse: v.boolean(),
  sort_criterium_id: v.nullable(v.string()),
  show: v.picklist(['cards', 'bars', 'bubbles']),
  show_clusters: v.picklist(['all', 'none', 'multi']),
  show_cluster_ids: v.array(v.string()),
  card_status: v.picklist(['all', 'active', 'aside']),
  card_author: v.picklist(['all', 'active', 'other']),
});

/** Applies the members that were given, keeping the rest. */
export function mergeView(base: View, patch: ViewInput | undefined): View {
  if (!patch) return { ...base };
  const merged: View = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}

/**
 * A view for a workshop rebuilt with new ids (a copy, an import): complete, pointing at the new ids
 * of the cards and criterion it named; `null` from a lookup drops the reference.
 */
export function remapView(
  view: ViewInput,
  newIds: { card: (id: string) => string | null; criterion: (id: string) => string | null },
): View {
  const full = mergeView(DEFAULT_VIEW, view);
  return {
    ...full,
    card: full.card ? newIds.card(full.card) : null,
    sort_criterium_id: full.sort_criterium_id ? newIds.criterion(full.sort_criterium_id) : null,
    show_cluster_ids: full.show_cluster_ids.flatMap((id) => newIds.card(id) ?? []),
  };
}
