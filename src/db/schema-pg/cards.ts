import { boolean, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, updatedAt } from './columns';
import { users } from './users';
import { criteria, sections, workshops } from './workshops';

/* The tables of `../schema/cards.ts`, in PostgreSQL. */

export const cards = pgTable(
  'cards',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    type: text('type', { enum: ['idea', 'cluster'] }).notNull(),
    title: text('title').notNull(),
    content: text('content').notNull().default(''),
    color: text('color'),
    aside: boolean('aside').notNull().default(false),
    parentId: text('parent_id'),
    position: integer('position').notNull(),
    x: doublePrecision('x'),
    y: doublePrecision('y'),
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

export const votes = pgTable(
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

export const voteTallies = pgTable(
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

export const voteTotals = pgTable(
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

export const ratings = pgTable(
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
    uniqueIndex('ratings_card_criterium_user').on(t.cardId, t.criteriumId, t.userId),
    index('ratings_workshop_criterium').on(t.workshopId, t.criteriumId),
  ],
);

export const items = pgTable(
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

export const comments = pgTable(
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

export const attachments = pgTable(
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
