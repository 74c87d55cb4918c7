import { randomFillSync } from 'node:crypto';
import { integer, text } from 'drizzle-orm/sqlite-core';

/*
 * Ids are cut from a pool of random bytes filled 4 KiB at a time (as Node does for randomUUID):
 * the same CSPRNG, without a call and an allocation per id on the write paths.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/** 128 random bits, URL-safe: ids must be unguessable (docs/api.md#requests-and-answers). */
export function newId(): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + 16);
  offset += 16;
  return id;
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
