import { boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, json, updatedAt } from './columns';
import { users } from './users';
import { workshops } from './workshops';

/* The tables of `../schema/activity.ts`, in PostgreSQL. */

export const events = pgTable(
  'events',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    action: text('action').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    /**
     * The author of the card the change is about (its own, or the card a piece of feedback is on); null
     * for changes about no card. Private writing (docs/api.md#private-writing-and-anonymous-authors)
     * hides a change from participants by it.
     */
    cardUserId: text('card_user_id'),
    /**
     * The API token the change was made with (docs/api.md#events); null for a session's.
     * No foreign key: a token's row goes only with its organization or its maker's account, and
     * the log then shows no token, as a deleted account shows no user.
     */
    apiTokenId: text('api_token_id'),
    change: json<Record<string, unknown>>('change').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('events_workshop_seq').on(t.workshopId, t.seq),
    index('events_workshop_action').on(t.workshopId, t.action, t.seq),
  ],
);

export const notifications = pgTable(
  'notifications',
  {
    id: idColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    data: json<Record<string, unknown>>('data').notNull(),
    read: boolean('read').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('notifications_user').on(t.userId, t.createdAt)],
);

export const files = pgTable(
  'files',
  {
    id: idColumn(),
    container: text('container').notNull(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    mimetype: text('mimetype').notNull(),
    size: integer('size').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    /**
     * The workshop an upload's bytes count against (its storage limit): a guest's workshop from the
     * upload on, a user's the first workshop it is attached to or illustrates; null until then.
     */
    workshopId: text('workshop_id').references(() => workshops.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('files_container_key').on(t.container, t.key),
    // A user's uploads of the last day, a workshop's stored bytes, and old uploads to sweep.
    index('files_user_created').on(t.userId, t.createdAt),
    index('files_workshop').on(t.workshopId),
    index('files_container_created').on(t.container, t.createdAt),
  ],
);

export const workshopExports = pgTable(
  'workshop_exports',
  {
    id: idColumn(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['pdf', 'xlsx', 'docx', 'csv', 'native'] }).notNull(),
    state: text('state', { enum: ['pending', 'success', 'failed'] })
      .notNull()
      .default('pending'),
    message: text('message'),
    fileContainer: text('file_container'),
    fileKey: text('file_key'),
    requestedBy: text('requested_by').references(() => users.id, { onDelete: 'set null' }),
    leaseUntil: text('lease_until'),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workshop_exports_workshop').on(t.workshopId, t.createdAt),
    index('workshop_exports_pending').on(t.state, t.leaseUntil),
  ],
);
