import * as v from 'valibot';
import { CARD_COLORS } from '../../domain/cards';
import { PrefsInput } from '../../domain/prefs';
import { ViewInput } from '../../domain/view';
import { namedText } from '../../i18n/named-text';

/*
 * Template files are written by hand, so they are checked strictly: an unknown member is a typo
 * and fails the load instead of being dropped. Their words are messages of `locales/`, named by id
 * (docs/i18n.md#template-and-canvas-text). A template view cannot name cards or criteria by id
 * (they do not exist yet); a step names its criterion by its title's message id in `sort_criterium`.
 */
const TemplateView = v.strictObject(
  v.omit(ViewInput, ['card', 'sort_criterium_id', 'show_cluster_ids', 'show_clusters']).entries,
);

const TemplateStep = v.strictObject({
  name: namedText(200),
  instructions: namedText(5_000),
  prefs: v.optional(v.strictObject(PrefsInput.entries)),
  view: v.optional(TemplateView),
  sort_criterium: v.optional(namedText(200)),
});

const TemplateCluster = v.strictObject({
  title: namedText(200),
  color: v.optional(v.picklist(CARD_COLORS)),
  ideas: v.optional(v.array(v.strictObject({ title: namedText(200), content: v.optional(namedText(5_000)) }))),
});

export const TemplateFile = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'A template id is a lower-case slug.')),
    title: namedText(200),
    description: namedText(1_000),
    steps: v.pipe(v.array(TemplateStep), v.minLength(3), v.maxLength(6)),
    clusters: v.optional(v.array(TemplateCluster), []),
    criteria: v.optional(v.array(v.strictObject({ title: namedText(200), scale: v.picklist([1, 2, 3, 4]) })), []),
    sections: v.optional(v.array(v.strictObject({ title: namedText(200) })), []),
    /** The workshop's vote budget (each member's points of each sign); unlimited when left out. */
    vote_limit: v.optional(
      v.strictObject({
        positive: v.pipe(v.number(), v.integer(), v.minValue(-1)),
        negative: v.pipe(v.number(), v.integer(), v.minValue(-1)),
      }),
    ),
  }),
  v.check(
    (t) =>
      t.steps.every(
        (step) => step.sort_criterium === undefined || t.criteria.some((c) => c.title === step.sort_criterium),
      ),
    'A step’s sort_criterium must name one of the template’s criteria.',
  ),
  v.check(
    (t) => t.steps.every((step) => step.view?.sort !== 'criterium_average' || step.sort_criterium !== undefined),
    'A step sorted by criterium_average names its criterion in sort_criterium.',
  ),
);
/** A template as its file says it (message ids), or in a language (`templateIn`): the same shape. */
export type Template = v.InferOutput<typeof TemplateFile>;

export const TemplateSummaryOutput = v.object({ id: v.string(), title: v.string(), description: v.string() });

export const TemplateOutput = v.object({
  id: v.string(),
  title: v.string(),
  description: v.string(),
  steps: v.array(v.object({ name: v.string(), instructions: v.string() })),
});
export type TemplateOutput = v.InferOutput<typeof TemplateOutput>;

export function toTemplateSummary(t: Template) {
  return { id: t.id, title: t.title, description: t.description };
}

export function toTemplate(t: Template): TemplateOutput {
  return { ...toTemplateSummary(t), steps: t.steps.map((s) => ({ name: s.name, instructions: s.instructions })) };
}
