-- Creation order: SQLite numbers every row (rowid), and lists whose rows can share a millisecond
-- order by it. These tables get a column of that name and meaning, so the same ORDER BY works on
-- both stores. It is not part of the schema Drizzle maps: queries never select or write it.
ALTER TABLE "votes" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "ratings" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "comments" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "organization_members" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
-- The epoch that caches of resolved bearer tokens are checked against (see auth_state in the schema).
INSERT INTO "auth_state" ("id", "epoch") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION "auth_state_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "auth_state" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_token_delete" AFTER DELETE ON "auth_tokens" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_user_update" AFTER UPDATE ON "users" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_user_delete" AFTER DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_organization_update" AFTER UPDATE ON "organizations" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_organization_delete" AFTER DELETE ON "organizations" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
-- vote_tallies follows votes, whatever writes them (REST, merges moving votes, cascades).
-- Removing a vote only updates an existing tally: a card being deleted may have lost its tallies first.
CREATE FUNCTION "vote_tallies_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
    UPDATE "vote_tallies" SET "positive" = "positive" - GREATEST(OLD."value", 0), "negative" = "negative" - GREATEST(-OLD."value", 0)
      WHERE "card_id" = OLD."card_id" AND "user_id" = OLD."user_id";
    DELETE FROM "vote_tallies" WHERE "card_id" = OLD."card_id" AND "user_id" = OLD."user_id" AND "positive" = 0 AND "negative" = 0;
  END IF;
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    INSERT INTO "vote_tallies" ("card_id", "user_id", "workshop_id", "positive", "negative")
      VALUES (NEW."card_id", NEW."user_id", NEW."workshop_id", GREATEST(NEW."value", 0), GREATEST(-NEW."value", 0))
      ON CONFLICT ("card_id", "user_id") DO UPDATE SET
        "positive" = "vote_tallies"."positive" + EXCLUDED."positive",
        "negative" = "vote_tallies"."negative" + EXCLUDED."negative";
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "vote_tallies_on_insert" AFTER INSERT ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_tallies_follow"();
--> statement-breakpoint
CREATE TRIGGER "vote_tallies_on_delete" AFTER DELETE ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_tallies_follow"();
--> statement-breakpoint
CREATE TRIGGER "vote_tallies_on_update" AFTER UPDATE OF "value", "card_id", "user_id" ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_tallies_follow"();
