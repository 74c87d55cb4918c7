-- The User-Agent of the request that opened a session, for the list of sessions, and the new
-- address a change-of-address link confirms (docs/api.md#an-accounts-life); null for those made
-- before this. Text in the "C" collation, as every text column (0010).
ALTER TABLE "auth_tokens" ADD COLUMN "user_agent" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD COLUMN "email" text COLLATE "C";
