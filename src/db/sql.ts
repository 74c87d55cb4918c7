import { sql, type SQL } from 'drizzle-orm';
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

let savepoints = 0;

/**
 * Runs `fn` in a savepoint of the open transaction `tx`: when it throws, only its own changes are
 * taken back and the transaction goes on.
 */
export async function inSavepoint<T>(tx: Db, fn: () => Promise<T>): Promise<T> {
  const name = sql.raw(`sp_${(savepoints = (savepoints + 1) % 1_000_000)}`);
  await execute(tx, sql`SAVEPOINT ${name}`);
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    await execute(tx, sql`ROLLBACK TO SAVEPOINT ${name}`);
    await execute(tx, sql`RELEASE SAVEPOINT ${name}`);
    throw err;
  }
  await execute(tx, sql`RELEASE SAVEPOINT ${name}`);
  return result;
}

/**
 * `column IN (values)` for a list of any length, bound as one parameter (a JSON array on SQLite,
 * an array on PostgreSQL) rather than one per value.
 */
export function inList(db: Db, column: SQL | SQL.Aliased | object, values: readonly string[]): SQL {
  if (dialectOf(db) === 'postgres') return sql`${column} = ANY(${sql.param([...values])}::text[])`;
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
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
 * instances). SQLite's single writer already holds every row: the query is left as it is.
 */
export function forUpdate<Q>(db: Db, query: Q, options: { skipLocked?: boolean } = {}): Q {
  if (dialectOf(db) !== 'postgres') return query;
  const lockable = query as unknown as { for(strength: 'update', config?: { skipLocked?: boolean }): Q };
  return lockable.for('update', options.skipLocked ? { skipLocked: true } : undefined);
}
