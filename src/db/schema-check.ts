import type * as pg from './schema-pg/index';
import type * as sqlite from './schema/index';

/*
 * The two schemas describe the same rows: query code is typed on the SQLite tables and runs on
 * the PostgreSQL ones (`database.ts`), so a table or a column added to one and not the other, or
 * typed differently, must not compile. Checked over every table of both, on what each reads and
 * what it takes: a new table is checked without a line added here.
 */

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** A table's row as it reads (`$inferSelect`) and as it is inserted (`$inferInsert`). */
type Rows = { $inferSelect: unknown; $inferInsert: unknown };

/**
 * The names of the tables whose rows differ between two schemas (modules of tables), or that only
 * one of them has: `never` when they describe the same rows.
 */
export type SchemaMismatches<A extends Record<string, Rows>, B extends Record<string, Rows>> =
  | Exclude<keyof A, keyof B>
  | Exclude<keyof B, keyof A>
  | {
      [K in keyof A & keyof B]: Same<A[K]['$inferSelect'], B[K]['$inferSelect']> extends true
        ? Same<A[K]['$inferInsert'], B[K]['$inferInsert']> extends true
          ? never
          : K
        : K;
    }[keyof A & keyof B];

/** Fails to compile, naming the tables, when the schemas differ. */
type NoneDiffer<T extends never> = T;

export type SchemaChecks = NoneDiffer<SchemaMismatches<typeof sqlite, typeof pg>>;
