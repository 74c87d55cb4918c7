import { sql, type SQL } from 'drizzle-orm';
import { dialectOf, type Db } from './database';

/*
 * JSON built by the database, in each dialect's words, for statements that answer a document in
 * one row (the workshop's details: docs/performance.md). Both dialects answer the JSON as text.
 */
export interface JsonSql {
  /** The function that builds an object from alternating keys and values. */
  object: SQL;
  /** A JSON array (as text) of `item` over the rows of `from`, in `order`; `[]` for no rows. */
  list: (item: SQL, order: string, from: SQL) => SQL;
  /** A JSON value as text. */
  asText: (value: SQL) => SQL;
}

export function jsonSqlOf(db: Db): JsonSql {
  if (dialectOf(db) === 'postgres') {
    return {
      object: sql.raw('json_build_object'),
      // PostgreSQL's json_agg answers null for no rows.
      list: (item, order, from) =>
        sql`(select coalesce(json_agg(${item} order by ${sql.raw(order)}), '[]'::json)::text from ${from})`,
      asText: (value) => sql`${value}::text`,
    };
  }
  return {
    object: sql.raw('json_object'),
    list: (item, order, from) => sql`(select json_group_array(${item} order by ${sql.raw(order)}) from ${from})`,
    asText: (value) => value,
  };
}
