import { customType, json as jsonColumn, text } from 'drizzle-orm/pg-core';
import { newId, nowIso } from '../columns';

/*
 * The PostgreSQL spelling of the columns in `../columns.ts`: the same names and the same values
 * in JavaScript (text ids and ISO timestamps, JSON documents kept as written, real booleans).
 */

export const idColumn = () => text('id').primaryKey().$defaultFn(newId);
export const createdAt = () => text('created_at').notNull().$defaultFn(nowIso);
export const updatedAt = () => text('updated_at').notNull().$defaultFn(nowIso);

/**
 * A JSON document, stored as `json` (not `jsonb`): its text is kept as written, so members come
 * back in the order they were written, as SQLite's text column keeps them.
 */
export const json = <T>(name: string) => jsonColumn(name).$type<T>();

/** Binary data (`bytea`), read as a Buffer as better-sqlite3 reads a blob. */
export const bytes = (name: string) =>
  customType<{ data: Buffer; driverData: Buffer }>({
    dataType: () => 'bytea',
  })(name);
