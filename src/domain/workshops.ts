import * as v from 'valibot';
import { OwnerSummaryOutput } from './organizations';
import { AuthorVisibilityOutput } from './prefs';
import { CriterionOutput } from './criteria';
import { SectionOutput } from './sections';
import { ViewOutput } from './view';
import { said } from '../i18n/valibot';

export const UserRoleOutput = v.object({
  id: v.string(),
  user_id: v.string(),
  role: v.picklist(['facilitator', 'participant']),
  /** The member's name, and whether they are a guest (docs/api.md#guests). */
  name: v.string(),
  guest: v.boolean(),
});
export type UserRoleOutput = v.InferOutput<typeof UserRoleOutput>;

/** The owner of a workshop: an organization, or the user seen as one (docs/api.md#workshops). */
export const OwnerOutput = OwnerSummaryOutput;
export type OwnerOutput = v.InferOutput<typeof OwnerOutput>;

/** The longest title and description of a workshop, in characters: REST and the native format alike. */
export const WORKSHOP_TITLE_MAX = 200;
export const WORKSHOP_DESCRIPTION_MAX = 5_000;

/** Far above any real budget, and small enough to stay an exact integer in the database. */
const MAX_POINTS = 1_000_000;
/** A member's vote budget (`vote_limit.positive`, `.negative`): a count, or -1 for unlimited. */
export const VoteBudgetInput = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(-1, said('error.validation.vote_budget')),
  v.maxValue(MAX_POINTS),
);
/** How many votes of one sign a member may put on one card (`vote_limit.max_positive`, `.max_negative`). */
export const VotesPerCardInput = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(1, said('error.validation.above_zero')),
  v.maxValue(MAX_POINTS),
);

export const VoteLimitOutput = v.object({
  positive: v.number(),
  negative: v.number(),
  max_positive: v.number(),
  max_negative: v.number(),
});

export const WorkshopOutput = v.object({
  id: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  title: v.string(),
  description: v.string(),
  state: v.picklist(['running', 'archived']),
  owner: OwnerOutput,
  current_step_id: v.nullable(v.string()),
  view: ViewOutput,
  sections: v.array(SectionOutput),
  criteria: v.array(CriterionOutput),
  vote_limit: VoteLimitOutput,
  daily_mail: v.boolean(),
  change_step_notifications: v.boolean(),
  force_sync: v.boolean(),
  /** Whether people may join with the code as guests (docs/api.md#guests). */
  allow_guests: v.boolean(),
  /** The language of its screen, exports and mails (docs/api.md#languages-and-time-zones). */
  language: v.string(),
  /**
   * The current step's `cards_visible` (docs/api.md#private-writing-and-anonymous-authors), `all`
   * with no current step: what others can see before one writes.
   */
  cards_visible: v.picklist(['all', 'own']),
  /** The current step's `authors` (docs/api.md#private-writing-and-anonymous-authors), `shown` with no current step. */
  authors: AuthorVisibilityOutput,
  /**
   * Whether the workshop has a canvas: without one, `GET …/canvas` answers 404, so a page reads it
   * only when this says so (docs/api.md#canvas-and-illustrations-known-before-asking).
   */
  has_canvas: v.boolean(),
  public_url: v.string(),
});
export type WorkshopOutput = v.InferOutput<typeof WorkshopOutput>;

/** Where people open the workshop: its `public_url`, and the link in mails about it. */
export function workshopPublicUrl(config: { publicUrl: string }, workshopId: string): string {
  return `${config.publicUrl}/workshops/${workshopId}`;
}
