-- Private writing and anonymous authors (CONTRACT §14). What was written before keeps its author shown.
ALTER TABLE "cards" ADD COLUMN "author_visibility" text DEFAULT 'shown' NOT NULL;--> statement-breakpoint
ALTER TABLE "comments" ADD COLUMN "author_visibility" text DEFAULT 'shown' NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ADD COLUMN "author_visibility" text DEFAULT 'shown' NOT NULL;--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "author_visibility" text DEFAULT 'shown' NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "card_user_id" text;--> statement-breakpoint
-- The log's existing changes learn whose card they are about, so a private step hides them too.
UPDATE "events" SET "card_user_id" = "change"->'card'->>'user_id'
  WHERE "action" IN ('addCard', 'updateCard', 'removeCard', 'mergeCards');--> statement-breakpoint
UPDATE "events" SET "card_user_id" = (SELECT "c"."user_id" FROM "cards" "c" WHERE "c"."id" = coalesce(
    "events"."change"->'vote'->>'card_id', "events"."change"->'rating'->>'card_id', "events"."change"->'item'->>'card_id',
    "events"."change"->'comment'->>'card_id', "events"."change"->'attachment'->>'card_id'))
  WHERE "action" IN ('addVote', 'updateVote', 'removeVote', 'addRating', 'updateRating', 'removeRating', 'addItem', 'updateItem',
    'removeItem', 'addComment', 'removeComment', 'addAttachment', 'removeAttachment');
