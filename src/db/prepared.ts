import { sql, type Placeholder } from 'drizzle-orm';
import type { Db } from './database';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

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
function preparedPerSize<T>(
  limit: number,
  factory: (db: Db, size: number) => T,
): (db: Db, size: number) => T | undefined {
  const cache = new WeakMap<Db, Map<number, T>>();
  return (db, size) => {
    if (size > limit) return undefined;
    let sizes = cache.get(db);
    if (!sizes) cache.set(db, (sizes = new Map<number, T>()));
    let prepared = sizes.get(size);
    if (!prepared) sizes.set(size, (prepared = factory(db, size)));
    return prepared;
  };
}

/** Rows per multi-row insert: well under either store's limit of bound parameters. */
const ROWS_PER_INSERT = 500;

/**
 * Multi-row inserts of up to this many rows are prepared, one statement per count (a batch of
 * votes inserts one row per vote, and logs one event each); larger ones are built each time.
 */
const PREPARED_ROWS = 64;

/** A row of an insert as `rowInserter` hands it to its statement: values, or placeholders for them. */
export type Insertable<Row> = { [K in keyof Row]: Row[K] | Placeholder };

/** A built multi-row insert: awaited as it is, or prepared with placeholders for its values. */
type InsertQuery<R> = PromiseLike<R> & { prepare(): { execute(values: Record<string, unknown>): Promise<R> } };

/**
 * Inserts rows of `columns` (each row holds exactly those) `ROWS_PER_INSERT` at a time, each
 * chunk in the one statement `insert` makes of its rows. A chunk of up to `PREPARED_ROWS` rows
 * runs a statement prepared once per handle and row count (named `<name>_<count>`, its rows given
 * as placeholders); a larger one is built. Answers what each chunk's statement answered, in order.
 * A column the schema fills in (`$defaultFn`: ids, times) must be among `columns`: a prepared
 * statement would keep the value it was prepared with.
 */
export function rowInserter<Row extends Record<string, unknown>, R>(
  name: string,
  columns: ReadonlyArray<keyof Row & string>,
  insert: (db: Db, rows: Array<Insertable<Row>>) => InsertQuery<R>,
): (db: Db, rows: readonly Row[]) => Promise<R[]> {
  const prepared = preparedPerSize(PREPARED_ROWS, (db, size) =>
    named(insert(db, rowPlaceholders(size, columns) as Array<Insertable<Row>>), `${name}_${size}`),
  );
  return async (db, rows) => {
    const answers: R[] = [];
    for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
      const chunk = rows.slice(at, at + ROWS_PER_INSERT);
      const statement = prepared(db, chunk.length);
      answers.push(statement ? await statement.execute(rowValues(chunk, columns)) : await insert(db, chunk));
    }
    return answers;
  };
}

/** Placeholders for a multi-row insert of `size` rows of `columns`, named `<column><row>` (`rowValues` gives their values). */
function rowPlaceholders<C extends string>(size: number, columns: readonly C[]): Array<Record<C, Placeholder>> {
  return Array.from(
    { length: size },
    (_, row) =>
      Object.fromEntries(columns.map((column) => [column, sql.placeholder(`${column}${row}`)])) as Record<
        C,
        Placeholder
      >,
  );
}

/** The values of `rows` for a statement made with `rowPlaceholders`. */
function rowValues<Row extends Record<string, unknown>>(
  rows: readonly Row[],
  columns: ReadonlyArray<keyof Row & string>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, index) => {
    for (const column of columns) values[`${column}${index}`] = row[column];
  });
  return values;
}

/**
 * Inserts `rows` into `table` `ROWS_PER_INSERT` at a time, each chunk one statement, built each
 * time: for rare bulk writes (a copy, an import), where `rowInserter`'s prepared statements would
 * only be kept for nothing.
 */
export async function insertChunked<T extends SQLiteTable>(
  tx: Db,
  table: T,
  rows: Array<T['$inferInsert']>,
): Promise<void> {
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT)
    await tx.insert(table).values(rows.slice(at, at + ROWS_PER_INSERT));
}
