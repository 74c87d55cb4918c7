import * as v from 'valibot';
import { PrefsOutput } from './prefs';
import { ViewOutput } from './view';

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
});
export type StepOutput = v.InferOutput<typeof StepOutput>;
