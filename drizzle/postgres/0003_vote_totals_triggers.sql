-- vote_totals follows votes as vote_tallies does: each voter's points across a workshop.
INSERT INTO "vote_totals" ("workshop_id", "user_id", "positive", "negative")
  SELECT "workshop_id", "user_id", sum("positive"), sum("negative") FROM "vote_tallies" GROUP BY "workshop_id", "user_id";
--> statement-breakpoint
CREATE FUNCTION "vote_totals_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
    UPDATE "vote_totals" SET "positive" = "positive" - GREATEST(OLD."value", 0), "negative" = "negative" - GREATEST(-OLD."value", 0)
      WHERE "workshop_id" = OLD."workshop_id" AND "user_id" = OLD."user_id";
    DELETE FROM "vote_totals" WHERE "workshop_id" = OLD."workshop_id" AND "user_id" = OLD."user_id" AND "positive" = 0 AND "negative" = 0;
  END IF;
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    INSERT INTO "vote_totals" ("workshop_id", "user_id", "positive", "negative")
      VALUES (NEW."workshop_id", NEW."user_id", GREATEST(NEW."value", 0), GREATEST(-NEW."value", 0))
      ON CONFLICT ("workshop_id", "user_id") DO UPDATE SET
        "positive" = "vote_totals"."positive" + EXCLUDED."positive",
        "negative" = "vote_totals"."negative" + EXCLUDED."negative";
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "vote_totals_on_insert" AFTER INSERT ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_totals_follow"();
--> statement-breakpoint
CREATE TRIGGER "vote_totals_on_delete" AFTER DELETE ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_totals_follow"();
--> statement-breakpoint
CREATE TRIGGER "vote_totals_on_update" AFTER UPDATE OF "value", "user_id", "workshop_id" ON "votes" FOR EACH ROW EXECUTE FUNCTION "vote_totals_follow"();
