import * as v from 'valibot';
import {
  CARD_CONTENT_MAX,
  CARD_TITLE_MAX,
  CardColorInput,
  CardOutput,
  type CardColor,
  type CardSummary,
} from '../../domain/cards';
import type { Schema } from '../../db/database';
import { idString, optionalText, queryBoolean, requiredText } from '../../http/validation';
import { CriterionOutput } from '../../domain/criteria';
import { ItemOutput } from '../../domain/items';
import { said } from '../../i18n/valibot';

export type CardRow = Schema['cards']['$inferSelect'];
export type CardType = CardRow['type'];
/** What a card's output is made of. */
export type CardFields = Pick<
  CardRow,
  | 'id'
  | 'number'
  | 'type'
  | 'title'
  | 'content'
  | 'aside'
  | 'userId'
  | 'authorVisibility'
  | 'position'
  | 'parentId'
  | 'color'
>;

export const CardSectionOutput = v.object({ id: v.string(), title: v.string(), items: v.array(ItemOutput) });
export type CardSectionOutput = v.InferOutput<typeof CardSectionOutput>;

/** A card with the relations asked for in `attributes`. */
export const CardDetailOutput = v.object({
  ...CardOutput.entries,
  sections: v.optional(v.array(CardSectionOutput)),
  criteria: v.optional(v.array(CriterionOutput)),
});
export type CardDetailOutput = v.InferOutput<typeof CardDetailOutput>;

export const emptySummary = (): CardSummary => ({ score: 0, comments: 0, sections: {}, attachments: 0 });

/** The API's face of a card; every module that hands out cards uses it. */
export function toCard(row: CardFields, summary: CardSummary = emptySummary()): CardOutput {
  return {
    id: row.id,
    short_id: String(row.number),
    type: row.type,
    title: row.title,
    content: row.content,
    aside: row.aside,
    summary,
    user_id: row.userId,
    author_visibility: row.authorVisibility,
    position: row.position,
    parent: row.parentId,
    color: (row.color as CardColor | null) ?? null,
  };
}

const cardType = v.picklist(['idea', 'cluster'], said('error.validation.card_type'));
const position = v.pipe(v.number(), v.integer(), v.minValue(0));

export const ListCardsQuery = v.object({
  type: v.optional(cardType),
  parent: v.optional(idString),
  aside: v.optional(queryBoolean),
});
export type ListCardsQuery = v.InferOutput<typeof ListCardsQuery>;

export const CARD_ATTRIBUTES = ['sections', 'criteria'] as const;
export type CardAttribute = (typeof CARD_ATTRIBUTES)[number];

export const GetCardQuery = v.object({
  attributes: v.optional(
    v.pipe(
      v.string(),
      v.transform((s) =>
        s
          .split(',')
          .map((a) => a.trim())
          .filter((a) => a !== ''),
      ),
      v.check(
        (list) => list.every((a) => (CARD_ATTRIBUTES as readonly string[]).includes(a)),
        said('error.validation.list_among', { options: CARD_ATTRIBUTES.join(', ') }),
      ),
      v.transform((list) => new Set(list as CardAttribute[])),
    ),
  ),
});

export const CreateCardInput = v.pipe(
  v.object({
    type: v.optional(cardType, 'idea'),
    title: requiredText(CARD_TITLE_MAX),
    content: v.optional(optionalText(CARD_CONTENT_MAX), ''),
    color: v.optional(v.nullable(CardColorInput)),
    aside: v.optional(v.boolean(), false),
    parent: v.optional(v.nullable(idString)),
    position: v.optional(position),
  }),
  v.forward(
    v.check((input) => input.type === 'cluster' || !input.color, said('error.validation.color_cluster_only')),
    ['color'],
  ),
  v.forward(
    v.check((input) => input.type === 'cluster' || !!input.parent, said('error.validation.idea_needs_parent')),
    ['parent'],
  ),
  v.forward(
    v.check((input) => input.type === 'idea' || !input.parent, said('error.validation.cluster_no_parent')),
    ['parent'],
  ),
);
export type CreateCardInput = v.InferOutput<typeof CreateCardInput>;

export const UpdateCardInput = v.object({
  title: v.optional(requiredText(CARD_TITLE_MAX)),
  content: v.optional(optionalText(CARD_CONTENT_MAX)),
  color: v.optional(v.nullable(CardColorInput)),
  aside: v.optional(v.boolean()),
  parent: v.optional(v.nullable(idString)),
  position: v.optional(position),
});
export type UpdateCardInput = v.InferOutput<typeof UpdateCardInput>;

export const MergeCardsInput = v.object({
  cards_id: v.pipe(
    v.array(idString),
    v.minLength(2, said('error.validation.merge_two')),
    v.maxLength(500),
    v.check((ids) => new Set(ids).size === ids.length, said('error.validation.merge_once')),
  ),
  title: v.optional(requiredText(CARD_TITLE_MAX)),
  content: v.optional(optionalText(CARD_CONTENT_MAX)),
});
export type MergeCardsInput = v.InferOutput<typeof MergeCardsInput>;

/** Fields compared for an update's `changes`. */
export const UPDATABLE_FIELDS = ['title', 'content', 'color', 'aside', 'parent', 'position'] as const;
