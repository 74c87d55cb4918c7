import * as v from 'valibot';
import { AuthorVisibilityOutput } from './prefs';
import { said } from '../i18n/valibot';

/** The colors a cluster may take (spec: Card). */
export const CARD_COLORS = [
  'blue',
  'green',
  'red',
  'orange',
  'purple',
  'yellow',
  'turquoise',
  'rose',
  'gray',
  'brown',
  'beige',
] as const;

export type CardColor = (typeof CARD_COLORS)[number];

/** A cluster's colour as an input gives it. */
export const CardColorInput = v.picklist(
  CARD_COLORS,
  said('error.validation.one_of', { options: CARD_COLORS.join(', ') }),
);

/** The longest title and content of a card, in characters: REST, the CSV import and the native format alike. */
export const CARD_TITLE_MAX = 500;
export const CARD_CONTENT_MAX = 20_000;

/** Cards one workshop may hold: far beyond a real workshop, and a bound on what one list or export costs. */
export const WORKSHOP_MAX_CARDS = 10_000;

export const CardSummaryOutput = v.object({
  /** Sum of the card's vote values (only the caller's own when display prefs hide the others). */
  score: v.number(),
  comments: v.number(),
  /** Section id → number of items on the card; sections without items are left out. */
  sections: v.record(v.string(), v.number()),
  attachments: v.number(),
});
export type CardSummary = v.InferOutput<typeof CardSummaryOutput>;

export const CardOutput = v.object({
  id: v.string(),
  short_id: v.string(),
  type: v.picklist(['idea', 'cluster']),
  title: v.string(),
  content: v.string(),
  aside: v.boolean(),
  summary: CardSummaryOutput,
  /**
   * Null when the card was written anonymously and the reader may not see its author
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  user_id: v.nullable(v.string()),
  author_visibility: AuthorVisibilityOutput,
  position: v.number(),
  parent: v.nullable(v.string()),
  color: v.nullable(v.picklist(CARD_COLORS)),
});
export type CardOutput = v.InferOutput<typeof CardOutput>;
