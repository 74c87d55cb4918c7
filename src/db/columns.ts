import { randomBytes } from 'node:crypto';
import { integer, text } from 'drizzle-orm/sqlite-core';

/** 128 random bits, URL-safe: ids must be unguessable (CONTRACT §5). */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Primary key column filled with a fresh opaque id. */
export const idColumn = () => text('id').primaryKey().$defaultFn(newId);

/** ISO 8601 UTC timestamps stored as text: they sort correctly and need no conversion on output. */
export const createdAt = () => text('created_at').notNull().$defaultFn(nowIso);
export const updatedAt = () => text('updated_at').notNull().$defaultFn(nowIso);

export const bool = (name: string) => integer(name, { mode: 'boolean' });

/** A JSON document kept in a text column. */
export const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>();
