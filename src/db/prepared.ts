import { sql, type Placeholder } from 'drizzle-orm';
import type { Db } from './database';

/**
 * Builds a set of prepared statements once per database handle. Hot paths (auth, access checks,
 * votes, the event log) use them to skip query building. A handle is one connection on SQLite
 * (the reader, the writer) and on PostgreSQL the pool or one pooled connection: each keeps its own.
 */
export function preparedPerDb<T>(factory: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = factory(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}

/**
 * Prepares a built query under `name`, by which PostgreSQL keeps its plan on each connection
 * (names are unique across the service); SQLite prepares it on its connection and needs no name.
 * Run it with `await prepared.execute(placeholders)`: both stores answer an array of rows.
 */
export function named<P>(query: { prepare(): P }, name: string): P {
  return (query.prepare as (name?: string) => P).call(query, name);
}

/**
 * For statements whose shape depends on a count (a multi-row insert): prepared once per handle and
 * count, for counts up to `limit`; above it the caller builds the statement itself (`undefined`).
 */
export function preparedPerSize<T>(limit: number, factory: (db: Db, size: number) => T): (db: Db, size: number) => T | undefined {
  const cache = new WeakMap<Db, Map<number, T>>();
  return (db, size) => {
    if (size > limit) return undefined;
    let sizes = cache.get(db);
    if (!sizes) cache.set(db, (sizes = new Map()));
    let prepared = sizes.get(size);
    if (!prepared) sizes.set(size, (prepared = factory(db, size)));
    return prepared;
  };
}

/** Rows per multi-row insert: well under either store's limit of bound parameters. */
export const ROWS_PER_INSERT = 500;

/**
 * Placeholders for a multi-row insert of `size` rows of `columns` (named `<column><row>`), for a
 * statement prepared per row count (`preparedPerSize`); `rowValues` gives it its values.
 */
export function rowPlaceholders<C extends string>(size: number, columns: readonly C[]): Array<Record<C, Placeholder>> {
  return Array.from({ length: size }, (_, row) => Object.fromEntries(columns.map((column) => [column, sql.placeholder(`${column}${row}`)])) as Record<C, Placeholder>);
}

/** The values of `rows` for a statement made with `rowPlaceholders`. */
export function rowValues(rows: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, index) => {
    for (const [column, value] of Object.entries(row)) values[`${column}${index}`] = value;
  });
  return values;
}
