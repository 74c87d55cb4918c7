import * as v from 'valibot';
import { optionalText, requiredText } from '../../http/validation';
import { CanvasImage, MAX_ZONES, size as gridSize, ZoneInput } from '../canvas/schemas';
import { CARD_CONTENT_MAX, CARD_TITLE_MAX, CardColorInput, WORKSHOP_MAX_CARDS } from '../../domain/cards';
import { AuthorVisibilityOutput, PrefsInput } from '../../domain/prefs';
import { VoteValue } from '../votes/schemas';
import {
  VoteBudgetInput,
  VotesPerCardInput,
  WORKSHOP_DESCRIPTION_MAX,
  WORKSHOP_TITLE_MAX,
} from '../../domain/workshops';
import { ViewInput } from '../../domain/view';

/*
 * The native format (docs/api.md#exports): one JSON document holding a workshop with everything in it,
 * `{"format": "workshop-native", "version": 1, ...}`. Names and shapes follow the REST resources
 * (snake_case); ids are the source's and only tie the document together: an import gives every
 * row a new id. The schema is also the import's first check, so its limits are the service's.
 */

export const NATIVE_FORMAT = 'workshop-native';
export const NATIVE_VERSION = 1;

/** A native file may hold at most this many bytes (docs/api.md#exports). */
export const NATIVE_MAX_BYTES = 10 * 1024 * 1024;

/** Bounds shared with the REST inputs: a file holds nothing REST would refuse. */
const MAX_COUNT = 1_000_000_000;
const MAX_COORDINATE = 10_000_000;

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
/**
 * Stored as the service writes its own (UTC, milliseconds, docs/api.md#requests-and-answers): a file's `+02:00` or
 * `2026-02-30` would otherwise come back out as given and sort out of order among the rest.
 */
const timestamp = v.pipe(
  v.string(),
  v.isoTimestamp('Expected an ISO 8601 timestamp.'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const time = Date.parse(dataset.value);
    const utc = Number.isNaN(time) ? '' : new Date(time).toISOString();
    // Past year 9999 or before year 0 once in UTC, the instant has no four-digit year.
    if (!/^\d{4}-/.test(utc)) {
      addIssue({ message: 'Expected an existing instant between the years 0 and 9999.' });
      return NEVER;
    }
    return utc;
  }),
);
const position = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_COUNT));
/** Short ids stay exact integers far beyond any workshop's cards (10,000 at most). */
const cardNumber = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_COUNT));
/** Card coordinates as the canvas document bounds them. */
const placed = v.nullable(v.pipe(v.number(), v.finite(), v.minValue(-MAX_COORDINATE), v.maxValue(MAX_COORDINATE)));
/**
 * The author of a card, comment or item, and the level of `authors` it was written under
 * (docs/api.md#private-writing-and-anonymous-authors). An export leaves out (null) the author it
 * may not name; files made before the level existed hold only shown authors.
 */
const authored = { user_id: v.nullable(id), author_visibility: v.optional(AuthorVisibilityOutput, 'shown') };
const list = <T extends v.GenericSchema>(item: T, max: number) =>
  v.pipe(v.array(item), v.maxLength(max, `At most ${max} entries.`));

export const NativeUser = v.object({
  id,
  name: v.pipe(v.string(), v.maxLength(200)),
  guest: v.optional(v.boolean(), false),
});

export const NativeStep = v.object({
  id,
  name: requiredText(255),
  instructions: optionalText(20_000),
  prefs: PrefsInput,
  view: ViewInput,
});

export const NativeCriterion = v.object({
  id,
  title: requiredText(200),
  scale: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)),
});
export const NativeSection = v.object({ id, title: requiredText(200) });

export const NativeCard = v.object({
  id,
  short_id: cardNumber,
  type: v.picklist(['idea', 'cluster']),
  title: requiredText(CARD_TITLE_MAX),
  content: optionalText(CARD_CONTENT_MAX),
  color: v.nullable(CardColorInput),
  aside: v.boolean(),
  parent_id: v.nullable(id),
  position,
  x: placed,
  y: placed,
  ...authored,
  created_at: timestamp,
});

export const NativeVote = v.object({ card_id: id, user_id: id, value: VoteValue, created_at: timestamp });
export const NativeRating = v.object({
  card_id: id,
  criterium_id: id,
  user_id: id,
  value: v.pipe(v.number(), v.integer()),
  created_at: timestamp,
});
export const NativeItem = v.object({
  card_id: id,
  section_id: id,
  ...authored,
  content: requiredText(10_000),
  created_at: timestamp,
});
export const NativeComment = v.object({
  card_id: id,
  ...authored,
  content: requiredText(10_000),
  created_at: timestamp,
});

export const NativeZone = v.object({ id, ...ZoneInput.entries, cluster_id: v.nullable(id) });

export const NativeCanvas = v.object({
  name: requiredText(200),
  background_id: v.pipe(v.string(), v.maxLength(100)),
  background: v.object({ cols: gridSize, rows: gridSize }),
  image: v.nullable(CanvasImage),
  zones: list(NativeZone, MAX_ZONES),
  /**
   * The workshop's Yjs document (base64 of a full-state update), for tools that read the canvas
   * as clients see it. An import rebuilds the document from the values above, under the new ids.
   */
  document: v.optional(v.nullable(v.string())),
});

export const NativeWorkshop = v.object({
  id,
  title: requiredText(WORKSHOP_TITLE_MAX),
  description: optionalText(WORKSHOP_DESCRIPTION_MAX),
  state: v.picklist(['running', 'archived']),
  daily_mail: v.boolean(),
  change_step_notifications: v.boolean(),
  force_sync: v.boolean(),
  /**
   * The workshop's language (docs/api.md#languages-and-time-zones). Files made before it existed
   * have none, and one this service does not speak is not refused: either way the import takes the
   * importer's locale.
   */
  language: v.optional(v.pipe(v.string(), v.maxLength(35))),
  view: ViewInput,
  vote_limit: v.object({
    positive: VoteBudgetInput,
    negative: VoteBudgetInput,
    max_positive: VotesPerCardInput,
    max_negative: VotesPerCardInput,
  }),
  current_step_id: v.nullable(id),
  last_card_number: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_COUNT)),
  created_at: timestamp,
});

/**
 * Feedback rows (votes, ratings, items, comments) one file may hold in all: far above a real
 * workshop's, and few enough that rebuilding them stays a short write (about a second).
 */
export const NATIVE_MAX_FEEDBACK = 25_000;

export const NativeDocument = v.pipe(
  v.object({
    format: v.literal(NATIVE_FORMAT, `Expected "format": "${NATIVE_FORMAT}".`),
    version: v.literal(NATIVE_VERSION, `Only version ${NATIVE_VERSION} of the native format can be read.`),
    exported_at: timestamp,
    workshop: NativeWorkshop,
    users: list(NativeUser, 100_000),
    steps: list(NativeStep, 1_000),
    criteria: list(NativeCriterion, 1_000),
    sections: list(NativeSection, 1_000),
    cards: list(NativeCard, WORKSHOP_MAX_CARDS),
    votes: list(NativeVote, NATIVE_MAX_FEEDBACK),
    ratings: list(NativeRating, NATIVE_MAX_FEEDBACK),
    items: list(NativeItem, NATIVE_MAX_FEEDBACK),
    comments: list(NativeComment, NATIVE_MAX_FEEDBACK),
    canvas: v.nullable(NativeCanvas),
  }),
  v.check(
    (doc) => doc.votes.length + doc.ratings.length + doc.items.length + doc.comments.length <= NATIVE_MAX_FEEDBACK,
    `At most ${NATIVE_MAX_FEEDBACK} votes, ratings, items and comments in all.`,
  ),
);

export type NativeDocument = v.InferOutput<typeof NativeDocument>;
