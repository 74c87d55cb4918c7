import { blob, index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, idColumn, json, updatedAt } from '../columns';
import { workshops } from './workshops';

/**
 * A workshop's Yjs document: `state` is the compacted snapshot, `yjs_updates` the updates
 * received since. Loading costs the snapshot plus the few updates after it.
 */
export const yjsDocuments = sqliteTable('yjs_documents', {
  workshopId: text('workshop_id')
    .primaryKey()
    .references(() => workshops.id, { onDelete: 'cascade' }),
  state: blob('state', { mode: 'buffer' }).notNull(),
  updatedAt: updatedAt(),
});

export const yjsUpdates = sqliteTable(
  'yjs_updates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    update: blob('update', { mode: 'buffer' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('yjs_updates_workshop').on(t.workshopId, t.id)],
);

/** A workshop's canvas (at most one). Its zones' geometry lives in the Yjs document; `zones` is the SQL copy. */
export const canvases = sqliteTable('canvases', {
  id: idColumn(),
  workshopId: text('workshop_id')
    .notNull()
    .unique()
    .references(() => workshops.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  backgroundId: text('background_id').notNull(),
  backgroundCols: real('background_cols').notNull(),
  backgroundRows: real('background_rows').notNull(),
  image: json<{ cols: number; rows: number; url: string }>('image'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const zones = sqliteTable(
  'zones',
  {
    id: idColumn(),
    canvasId: text('canvas_id')
      .notNull()
      .references(() => canvases.id, { onDelete: 'cascade' }),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    x: real('x').notNull(),
    y: real('y').notNull(),
    rows: real('rows').notNull(),
    cols: real('cols').notNull(),
    clusterId: text('cluster_id'),
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('zones_canvas').on(t.canvasId, t.position), index('zones_workshop').on(t.workshopId)],
);
