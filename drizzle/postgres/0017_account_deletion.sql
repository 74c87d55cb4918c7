-- Deleting an account (docs/api.md#an-accounts-life): the user's row stays as a scrubbed tombstone
-- (`deleted_at`), so the votes and ratings it cast stay counted, and what it wrote in others'
-- workshops loses its author (`user_id` null). Text in the "C" collation, as every text column (0010).
ALTER TABLE "attachments" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cards" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "comments" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "items" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "deleted_at" text COLLATE "C";