import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as pg from '../src/db/schema-pg/index';
import type * as sqlite from '../src/db/schema/index';
import type { SchemaMismatches } from '../src/db/schema-check';

/*
 * `schema-check.ts` holds the two schemas to the same rows at compile time. These checks run in
 * `npm run typecheck` (CI runs it before the tests): each names what a drifted schema would be
 * refused for.
 */

type Pg = typeof pg;
type Sqlite = typeof sqlite;
type VoteRow = Pg['votes']['$inferSelect'];

describe('the schema check', () => {
  it('finds the two schemas alike', () => {
    expectTypeOf<SchemaMismatches<Sqlite, Pg>>().toEqualTypeOf<never>();
    expect(true).toBe(true);
  });

  it('names a table only one schema has', () => {
    expectTypeOf<SchemaMismatches<Sqlite, Omit<Pg, 'votes'>>>().toEqualTypeOf<'votes'>();
    expectTypeOf<SchemaMismatches<Omit<Sqlite, 'zones'>, Pg>>().toEqualTypeOf<'zones'>();
  });

  it('names a table whose rows read differently, or are inserted differently', () => {
    type ValueAsText = Omit<Pg, 'votes'> & { votes: { $inferSelect: Omit<VoteRow, 'value'> & { value: string }; $inferInsert: Pg['votes']['$inferInsert'] } };
    expectTypeOf<SchemaMismatches<Sqlite, ValueAsText>>().toEqualTypeOf<'votes'>();
    type IdRequired = Omit<Pg, 'cards'> & { cards: { $inferSelect: Pg['cards']['$inferSelect']; $inferInsert: Pg['cards']['$inferInsert'] & { id: string } } };
    expectTypeOf<SchemaMismatches<Sqlite, IdRequired>>().toEqualTypeOf<'cards'>();
  });
});
