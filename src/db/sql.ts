import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { dialectOf, type Db } from './database';

/*
 * Statements written as SQL rather than built, answered alike by both stores. Column names come
 * back as written (alias them in snake_case or camelCase as the caller reads them).
 */

/** What PostgreSQL's handles answer raw statements with (Drizzle's node-postgres `execute`). */
type PgHandle = { execute(query: SQL): Promise<{ rows: unknown[] }> };

/** Every row a statement returns. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  if (dialectOf(db) === 'postgres') return (await (db as unknown as PgHandle).execute(query)).rows as T[];
  return (await db.all(query)) as T[];
}

/** The first row a statement returns, or undefined. */
export async function queryRow<T>(db: Db, query: SQL): Promise<T | undefined> {
  return (await queryRows<T>(db, query))[0];
}

/** Runs a statement for its effect. */
export async function execute(db: Db, query: SQL): Promise<void> {
  if (dialectOf(db) === 'postgres') await (db as unknown as PgHandle).execute(query);
  else await db.run(query);
}

/**
 * `column IN (…)` for a list of any length, bound as one parameter: the list as a JSON array of
 * strings, which both dialects expand (SQLite `json_each`, PostgreSQL `json_array_elements_text`).
 * Pass the values, or a placeholder for a prepared statement (its value: `JSON.stringify(list)`),
 * so one statement serves lists of every length.
 */
export function inList(db: Db, column: SQL | SQL.Aliased | object, values: readonly string[] | Placeholder): SQL {
  const list = Array.isArray(values) ? JSON.stringify(values) : values;
  // An array PostgreSQL's planner sees as one, so the column's index is used (a set-returning
  // function would be planned as a hundred rows to hash against a scan of the table).
  if (dialectOf(db) === 'postgres') return sql`${column} = ANY(ARRAY(SELECT json_array_elements_text(${list}::json)))`;
  return sql`${column} IN (SELECT value FROM json_each(${list}))`;
}

/**
 * `(first, second) IN (…)` for a list of pairs, bound as one parameter: a JSON array of
 * two-element arrays (as `inList`, a placeholder's value is `JSON.stringify(pairs)`).
 */
export function inPairs(
  db: Db,
  first: SQL | object,
  second: SQL | object,
  pairs: ReadonlyArray<readonly [string, string]> | Placeholder,
): SQL {
  const list = Array.isArray(pairs) ? JSON.stringify(pairs) : pairs;
  if (dialectOf(db) === 'postgres') {
    const member = (index: number) =>
      sql`ARRAY(SELECT pair ->> ${sql.raw(String(index))} FROM json_array_elements(${list}::json) AS pair)`;
    // Each column against its array first (an index scan, as in `inList`), then the pairs themselves.
    return sql`${first} = ANY(${member(0)}) AND ${second} = ANY(${member(1)}) AND (${first}, ${second}) IN (SELECT pair ->> 0, pair ->> 1 FROM json_array_elements(${list}::json) AS pair)`;
  }
  return sql`(${first}, ${second}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${list}))`;
}

/**
 * A member of a JSON document held in a text column, as text (SQLite `json_extract`, PostgreSQL
 * `->>`). A dotted `member` (`vote.user_id`) reaches into nested objects: PostgreSQL walks it with
 * `->` and reads the last key with `->>`.
 */
export function jsonText(db: Db, column: SQL | object, member: string): SQL {
  if (dialectOf(db) === 'postgres') {
    const keys = member.split('.');
    const last = keys.pop()!;
    return sql`(${column}::json${sql.join(keys.map((key) => sql` -> ${key}`))} ->> ${last})`;
  }
  return sql`json_extract(${column}, ${`$.${member}`})`;
}

/** A boolean a SQL expression answered (not a schema column, which Drizzle maps): SQLite's 0 or 1, PostgreSQL's true or false. */
export function sqlBoolean(value: unknown): boolean {
  return value === true || value === 1;
}

/**
 * `SELECT … FOR UPDATE` on PostgreSQL: the rows read stay this transaction's until it ends; with
 * `skipLocked`, rows another transaction holds are passed over (a queue claimed by several
 * instances). With `referenced` (a row other rows point to, such as a user), the lock is `FOR NO
 * KEY UPDATE`: inserting a row that references it takes `FOR KEY SHARE` on it, which that lock
 * neither waits for nor blocks, so two transactions that each inserted one (an event by that user)
 * cannot deadlock taking it. SQLite's single writer already holds every row: the query is left as it is.
 */
export function forUpdate<Q>(db: Db, query: Q, options: { skipLocked?: boolean; referenced?: boolean } = {}): Q {
  if (dialectOf(db) !== 'postgres') return query;
  const lockable = query as unknown as {
    for(strength: 'update' | 'no key update', config?: { skipLocked?: boolean }): Q;
  };
  return lockable.for(
    options.referenced ? 'no key update' : 'update',
    options.skipLocked ? { skipLocked: true } : undefined,
  );
}

/**
 * Rows given as one JSON parameter (an array of arrays), as a table with the named columns, for
 * statements that take many rows at once (`UPDATE … FROM`). Alias it in the statement.
 */
export function jsonRows(
  db: Db,
  rows: string | Placeholder,
  columns: ReadonlyArray<{ name: string; type: 'text' | 'integer' }>,
): SQL {
  if (dialectOf(db) === 'postgres') {
    const fields = columns.map(({ name, type }, index) => sql.raw(`(item ->> ${index})::${type} AS ${name}`));
    return sql`(SELECT ${sql.join(fields, sql`, `)} FROM json_array_elements(${rows}::json) AS item)`;
  }
  const fields = columns.map(({ name }, index) => sql.raw(`json_extract(value, '$[${index}]') AS ${name}`));
  return sql`(SELECT ${sql.join(fields, sql`, `)} FROM json_each(${rows}))`;
}
