-- Text compares bytewise on any database, as in SQLite: every text column takes the "C" collation,
-- whatever the database was created with (managed PostgreSQL and createdb give en_US.UTF-8 or
-- C.UTF-8, which order names, ids and e-mail addresses by a language's rules, and whose lower()
-- folds letters beyond ASCII). Expressions over a column (ORDER BY, <, lower()) take its
-- collation, and the indexes are rebuilt in it, so they still serve those orders.
-- A column added later must say COLLATE "C" too (test/schema-check.test.ts reads the catalog).
-- The two triggers that name votes' columns would refuse the change: made again after it, as in 0001 and 0003.
DROP TRIGGER "vote_tallies_on_update" ON "votes";
--> statement-breakpoint
DROP TRIGGER "vote_totals_on_update" ON "votes";
--> statement-breakpoint
DO $$
DECLARE
  alteration record;
BEGIN
  FOR alteration IN
    SELECT c.table_name, string_agg(format('ALTER COLUMN %I SET DATA TYPE text COLLATE "C"', c.column_name), ', ' ORDER BY c.ordinal_position) AS columns
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.data_type = 'text' AND c.collation_name IS DISTINCT FROM 'C'
    GROUP BY c.table_name
    ORDER BY c.table_name
  LOOP
    -- One statement per table: its indexes are rebuilt once.
    EXECUTE format('ALTER TABLE %I %s', alteration.table_name, alteration.columns);
  END LOOP;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "vote_tallies_on_update" AFTER UPDATE OF "value", "card_id", "user_id" ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_tallies_follow"();
--> statement-breakpoint
CREATE TRIGGER "vote_totals_on_update" AFTER UPDATE OF "value", "user_id", "workshop_id" ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_totals_follow"();
