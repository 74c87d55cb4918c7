import * as v from 'valibot';
import { PrefsInput } from '../steps/prefs';
import { ViewInput } from '../workshops/view';

/*
 * The native format (CONTRACT §7): one JSON document holding a workshop with everything in it,
 * `{"format": "workshop-native", "version": 1, ...}`. Names and shapes follow the REST resources
 * (snake_case); ids are the source's and only tie the document together: an import gives every
 * row a new id. The schema is also the import's first check, so its limits are the service's.
 */

export const NATIVE_FORMAT = 'workshop-native';
export const NATIVE_VERSION = 1;

/** A native file may hold at most this many bytes (CONTRACT §7). */
export const NATIVE_MAX_BYTES = 10 * 1024 * 1024;

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const title = v.pipe(v.string(), v.minLength(1), v.maxLength(500));
const timestamp = v.pipe(v.string(), v.isoTimestamp('Expected an ISO 8601 timestamp.'));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const coordinate = v.nullable(v.pipe(v.number(), v.finite()));
const points = v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(1_000_000));
const list = <T extends v.GenericSchema>(item: T, max: number) => v.pipe(v.array(item), v.maxLength(max, `At most ${max} entries.`));

export const NativeUser = v.object({ id, name: text(200) });

export const NativeStep = v.object({
  id,
  name: title,
  instructions: text(20_000),
  prefs: PrefsInput,
  view: ViewInput,
});

export const NativeCriterion = v.object({ id, title, scale: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)) });
export const NativeSection = v.object({ id, title });

export const NativeCard = v.object({
  id,
  short_id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  type: v.picklist(['idea', 'cluster']),
  title,
  content: text(20_000),
  color: v.nullable(text(50)),
  aside: v.boolean(),
  parent_id: v.nullable(id),
  position: count,
  x: coordinate,
  y: coordinate,
  user_id: id,
  created_at: timestamp,
});

export const NativeVote = v.object({ card_id: id, user_id: id, value: v.pipe(v.number(), v.integer(), v.notValue(0)), created_at: timestamp });
export const NativeRating = v.object({ card_id: id, criterium_id: id, user_id: id, value: v.pipe(v.number(), v.integer()), created_at: timestamp });
export const NativeItem = v.object({ card_id: id, section_id: id, user_id: id, content: text(20_000), created_at: timestamp });
export const NativeComment = v.object({ card_id: id, user_id: id, content: text(20_000), created_at: timestamp });

export const NativeZone = v.object({
  id,
  name: text(200),
  x: v.pipe(v.number(), v.finite()),
  y: v.pipe(v.number(), v.finite()),
  rows: v.pipe(v.number(), v.finite()),
  cols: v.pipe(v.number(), v.finite()),
  cluster_id: v.nullable(id),
});

export const NativeCanvas = v.object({
  name: text(200),
  background_id: text(100),
  background: v.object({ cols: v.pipe(v.number(), v.finite()), rows: v.pipe(v.number(), v.finite()) }),
  image: v.nullable(v.object({ cols: v.number(), rows: v.number(), url: text(2048) })),
  zones: list(NativeZone, 1_000),
  /**
   * The workshop's Yjs document (base64 of a full-state update), for tools that read the canvas
   * as clients see it. An import rebuilds the document from the values above, under the new ids.
   */
  document: v.optional(v.nullable(v.string())),
});

export const NativeWorkshop = v.object({
  id,
  title,
  description: text(20_000),
  state: v.picklist(['running', 'archived']),
  daily_mail: v.boolean(),
  change_step_notifications: v.boolean(),
  force_sync: v.boolean(),
  view: ViewInput,
  vote_limit: v.object({ positive: points, negative: points, max_positive: points, max_negative: points }),
  current_step_id: v.nullable(id),
  last_card_number: count,
  created_at: timestamp,
});

export const NativeDocument = v.object({
  format: v.literal(NATIVE_FORMAT, `Expected "format": "${NATIVE_FORMAT}".`),
  version: v.literal(NATIVE_VERSION, `Only version ${NATIVE_VERSION} of the native format can be read.`),
  exported_at: timestamp,
  workshop: NativeWorkshop,
  users: list(NativeUser, 100_000),
  steps: list(NativeStep, 200),
  criteria: list(NativeCriterion, 100),
  sections: list(NativeSection, 100),
  cards: list(NativeCard, 10_000),
  votes: list(NativeVote, 1_000_000),
  ratings: list(NativeRating, 1_000_000),
  items: list(NativeItem, 200_000),
  comments: list(NativeComment, 200_000),
  canvas: v.nullable(NativeCanvas),
});

export type NativeDocument = v.InferOutput<typeof NativeDocument>;
