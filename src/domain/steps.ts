import * as v from 'valibot';
import { DEFAULT_PREFS, type StepPrefs } from './permissions';
import { mergePrefs, PrefsOutput } from './prefs';
import { DEFAULT_VIEW, mergeView, ViewOutput, type View } from './view';

/** Where a step's illustration stands beside its text. */
export const IllustrationAlign = v.picklist(['left', 'above']);

export const IllustrationOutput = v.object({
  id: v.string(),
  name: v.string(),
  align: IllustrationAlign,
  public_url: v.string(),
  crop_url: v.string(),
  resize_url: v.string(),
});
export type IllustrationOutput = v.InferOutput<typeof IllustrationOutput>;

export const StepOutput = v.object({
  id: v.string(),
  position: v.number(),
  name: v.string(),
  instructions: v.string(),
  prefs: PrefsOutput,
  view: ViewOutput,
  /**
   * Whether the step has an illustration: without one, `GET …/illustration` answers 404, so a page
   * reads it only when this says so (docs/api.md#canvas-and-illustrations-known-before-asking).
   */
  has_illustration: v.boolean(),
});
export type StepOutput = v.InferOutput<typeof StepOutput>;

/** What a step's output is made of. */
export interface StepFields {
  id: string;
  position: number;
  name: string;
  instructions: string;
  prefs: StepPrefs;
  view: View;
}

/**
 * The API's face of a step: its own routes and the workshop's changes (a step made current, a view
 * cleared) show it alike. `illustrated`: whether it has an illustration (stored apart from the step).
 */
export function toStep(row: StepFields, illustrated: boolean): StepOutput {
  return {
    id: row.id,
    position: row.position,
    name: row.name,
    instructions: row.instructions,
    // Stored documents are completed with the defaults, so a member added later always has a value.
    prefs: mergePrefs(DEFAULT_PREFS, row.prefs),
    view: mergeView(DEFAULT_VIEW, row.view),
    has_illustration: illustrated,
  };
}
