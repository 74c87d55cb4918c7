import { doublePrecision, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { bytes, createdAt, idColumn, json, updatedAt } from './columns';
import { workshops } from './workshops';

/* The tables of `../schema/collab.ts`, in PostgreSQL. */

export const yjsDocuments = pgTable('yjs_documents', {
  workshopId: text('workshop_id')
    .primaryKey()
    .references(() => workshops.id, { onDelete: 'cascade' }),
  state: bytes('state').notNull(),
  updatedAt: updatedAt(),
});

export const yjsUpdates = pgTable(
  'yjs_updates',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    workshopId: text('workshop_id')
      .notNull()
      .references(() => workshops.id, { onDelete: 'cascade' }),
    update: bytes('update').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('yjs_updates_workshop').on(t.workshopId, t.id)],
);

export const canvases = pgTable('canvases', {
  id: idColumn(),
  workshopId: text('workshop_id')
    .notNull()
    .unique()
    .references(() => workshops.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  backgroundId: text('background_id').notNull(),
  backgroundCols: doublePrecision('background_cols').notNull(),
  backgroundRows: doublePrecision('background_rows').notNull(),
  image: json<{ cols: number; rows: number; url: string }>('image'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const zones = pgTable(
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
    x: doublePrecision('x').notNull(),
    y: doublePrecision('y').notNull(),
    rows: doublePrecision('rows').notNull(),
    cols: doublePrecision('cols').notNull(),
    clusterId: text('cluster_id'),
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('zones_canvas').on(t.canvasId, t.position), index('zones_workshop').on(t.workshopId)],
);
