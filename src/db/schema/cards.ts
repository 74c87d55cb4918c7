import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, createdAt, idColumn, updatedAt } from '../columns';
import { users } from './users';
import { criteria, sections, workshops } from './workshops';

export const cards = sqliteTable(
  'cards',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    /** The card's number within its workshop. */
    number: integer('number').notNull(),
    type: text('type', { enum: ['idea', 'cluster'] }).notNull(),
    title: text('title').notNull(),
    content: text('content').notNull().default(''),
    color: text('color'),
    aside: bool('aside').notNull().default(false),
    /** Null for clusters; an idea's cluster otherwise. Ideas go with their cluster. */
    parentId: text('parent_id'),
    /** Position among siblings (same parent, or all clusters), kept 0..n-1. */
    position: integer('position').notNull(),
    /** Canvas coordinates; the Yjs document holds the truth, this is a copy for sorting and exports. */
    x: real('x'),
    y: real('y'),
    /** The author; null once their account is deleted (docs/api.md#an-accounts-life). */
    userId: text('user_id').references(() => users.id),
    /**
     * Who may see the author (docs/api.md#private-writing-and-anonymous-authors): the current step's
     * `authors` when it was written; kept for good.
     */
    authorVisibility: text('author_visibility', { enum: ['shown', 'hidden_from_participants', 'hidden'] })
      .notNull()
      .default('shown'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('cards_workshop_parent_position').on(t.workshopId, t.parentId, t.position),
    index('cards_parent').on(t.parentId),
  ],
);

export const votes = sqliteTable(
  'votes',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    value: integer('value').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('votes_workshop_user').on(t.workshopId, t.userId), index('votes_card').on(t.cardId, t.userId)],
);

/**
 * Per card and voter, the points of their votes (positive values, negative magnitudes), kept by
 * triggers on `votes` (migration `0006`) whatever writes them: budget checks and scores read a
 * row or a handful instead of summing every vote, which grows with the workshop.
 */
export const voteTallies = sqliteTable(
  'vote_tallies',
  {
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    positive: integer('positive').notNull().default(0),
    negative: integer('negative').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.cardId, t.userId] }),
    index('vote_tallies_workshop_user').on(t.workshopId, t.userId),
  ],
);

/**
 * Per voter and workshop, the points of all their votes there, kept by triggers on `votes`
 * (migration `0013`) like `vote_tallies`: a budget check reads one row per voter, however many
 * cards they voted on.
 */
export const voteTotals = sqliteTable(
  'vote_totals',
  {
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    positive: integer('positive').notNull().default(0),
    negative: integer('negative').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workshopId, t.userId] })],
);

export const ratings = sqliteTable(
  'ratings',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    criteriumId: text('criterium_id')
      .notNull()
      .references(() => criteria.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    value: integer('value').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One rating per user, card and criterion (409 already_rated otherwise).
    uniqueIndex('ratings_card_criterium_user').on(t.cardId, t.criteriumId, t.userId),
    index('ratings_workshop_criterium').on(t.workshopId, t.criteriumId),
  ],
);

export const items = sqliteTable(
  'items',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    sectionId: text('section_id')
      .notNull()
      .references(() => sections.id, { onDelete: 'cascade' }),
    /** The author; null once their account is deleted (docs/api.md#an-accounts-life). */
    userId: text('user_id').references(() => users.id),
    /**
     * Who may see the author (docs/api.md#private-writing-and-anonymous-authors): the current step's
     * `authors` when it was written; kept for good.
     */
    authorVisibility: text('author_visibility', { enum: ['shown', 'hidden_from_participants', 'hidden'] })
      .notNull()
      .default('shown'),
    content: text('content').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('items_card').on(t.cardId, t.sectionId), index('items_workshop').on(t.workshopId)],
);

export const comments = sqliteTable(
  'comments',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    /** The author; null once their account is deleted (docs/api.md#an-accounts-life). */
    userId: text('user_id').references(() => users.id),
    /**
     * Who may see the author (docs/api.md#private-writing-and-anonymous-authors): the current step's
     * `authors` when it was written; kept for good.
     */
    authorVisibility: text('author_visibility', { enum: ['shown', 'hidden_from_participants', 'hidden'] })
      .notNull()
      .default('shown'),
    content: text('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('comments_card').on(t.cardId, t.createdAt), index('comments_workshop').on(t.workshopId)],
);

export const attachments = sqliteTable(
  'attachments',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    cardId: text('card_id')
      .notNull()
      .references(() => cards.id, { onDelete: 'cascade' }),
    /** The author; null once their account is deleted (docs/api.md#an-accounts-life). */
    userId: text('user_id').references(() => users.id),
    /**
     * Who may see the author (docs/api.md#private-writing-and-anonymous-authors): the current step's
     * `authors` when it was written; kept for good.
     */
    authorVisibility: text('author_visibility', { enum: ['shown', 'hidden_from_participants', 'hidden'] })
      .notNull()
      .default('shown'),
    name: text('name').notNull(),
    fileKey: text('file_key').notNull(),
    container: text('container').notNull(),
    mimetype: text('mimetype').notNull(),
    size: integer('size').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('attachments_card').on(t.cardId),
    index('attachments_workshop').on(t.workshopId),
    // Whether an upload is attached anywhere (the sweep of unattached uploads).
    index('attachments_file').on(t.fileKey),
  ],
);
