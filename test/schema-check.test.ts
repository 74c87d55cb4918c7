import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type * as pg from '../src/db/schema-pg/index';
import type * as sqlite from '../src/db/schema/index';
import type { SchemaMismatches } from '../src/db/schema-check';
import { startTestServer, type TestServer } from './helpers/server';
import { testStore } from './helpers/store';

/*
 * `schema-check.ts` holds the two schemas to the same rows at compile time. The type checks below
 * run in `npm run typecheck` (CI runs it before the tests): each names what a drifted schema would
 * be refused for. What types cannot see (a column's name in SQL, what the migrations made of it)
 * is read from the two running databases' catalogs.
 */

type Pg = typeof pg;
type Sqlite = typeof sqlite;
type VoteRow = Pg['votes']['$inferSelect'];

describe('the schema check', () => {
  it('finds the two schemas alike', () => {
    expectTypeOf<SchemaMismatches<Sqlite, Pg>>().toEqualTypeOf<never>();
  });

  it('names a table only one schema has', () => {
    expectTypeOf<SchemaMismatches<Sqlite, Omit<Pg, 'votes'>>>().toEqualTypeOf<'votes'>();
    expectTypeOf<SchemaMismatches<Omit<Sqlite, 'zones'>, Pg>>().toEqualTypeOf<'zones'>();
  });

  it('names a table whose rows read differently, or are inserted differently', () => {
    type ValueAsText = Omit<Pg, 'votes'> & {
      votes: { $inferSelect: Omit<VoteRow, 'value'> & { value: string }; $inferInsert: Pg['votes']['$inferInsert'] };
    };
    expectTypeOf<SchemaMismatches<Sqlite, ValueAsText>>().toEqualTypeOf<'votes'>();
    type IdRequired = Omit<Pg, 'cards'> & {
      cards: { $inferSelect: Pg['cards']['$inferSelect']; $inferInsert: Pg['cards']['$inferInsert'] & { id: string } };
    };
    expectTypeOf<SchemaMismatches<Sqlite, IdRequired>>().toEqualTypeOf<'cards'>();
  });
});

interface CatalogColumn {
  table_name: string;
  column_name: string;
  not_null: boolean | number;
}

/** `table.column` and whether it takes nulls, of every table the service made. */
const described = (columns: CatalogColumn[]) =>
  columns.map((column) => `${column.table_name}.${column.column_name}${column.not_null ? ' not null' : ''}`).sort();

describe.skipIf(testStore !== 'postgres')('the migrated databases', () => {
  let sqliteServer: TestServer;
  let postgresServer: TestServer;
  beforeAll(async () => {
    sqliteServer = await startTestServer({}, { store: 'sqlite' });
    postgresServer = await startTestServer({}, { store: 'postgres' });
  });
  afterAll(async () => {
    await sqliteServer?.close();
    await postgresServer?.close();
  });

  it('have the same tables and columns, by their SQL names, null or not alike', async () => {
    const fromSqlite = await sqliteServer.rows<CatalogColumn>(sql`
      SELECT m.name AS table_name, c.name AS column_name, c."notnull" OR c.pk > 0 AS not_null
      FROM sqlite_master m, pragma_table_info(m.name) c
      WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '__drizzle%'`);
    // PostgreSQL's "rowid" columns stand for SQLite's implicit rowid (creation order, 0001 and 0009).
    const fromPostgres = await postgresServer.rows<CatalogColumn>(sql`
      SELECT c.table_name, c.column_name, c.is_nullable = 'NO' AS not_null
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.column_name <> 'rowid'`);
    expect(fromSqlite.length).toBeGreaterThan(100);
    expect(described(fromPostgres)).toEqual(described(fromSqlite));
  });

  it("compare text bytewise on PostgreSQL: every text column has the C collation, whatever the database's locale", async () => {
    const text = await postgresServer.rows<{ column: string; collation: string | null }>(sql`
      SELECT c.table_name || '.' || c.column_name AS column, c.collation_name AS collation
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'character')`);
    expect(text.length).toBeGreaterThan(100);
    // A column added without COLLATE "C" in its migration sorts by the database's locale: say it there.
    expect(text.filter((column) => column.collation !== 'C').map((column) => column.column)).toEqual([]);
  });
});
