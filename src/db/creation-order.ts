import { sql, type SQL } from 'drizzle-orm';

/*
 * Insertion order, for rows whose timestamps tie within a millisecond. SQLite keeps it implicitly
 * as `rowid`; the PostgreSQL migrations give each table that needs it an identity column of the
 * same name (drizzle/postgres/0001_triggers_and_creation_order.sql), which the schema leaves
 * undeclared so inserts never name it. Sort by `createdAt`, then by this.
 */

/** The table's insertion order, qualified by its name (safe in joins and subqueries). */
export function creationOrder(table: object): SQL {
  return sql`${table}.rowid`;
}

/** The same column, unqualified: for hand-written statements that name the table's columns bare. */
export const CREATION_ORDER_COLUMN = sql.raw('rowid');
