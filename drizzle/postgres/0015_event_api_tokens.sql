-- The API token a logged change was made with (docs/api.md#events); null for a session's,
-- and for every change logged before this. Text in the "C" collation, as every text column (0010).
ALTER TABLE "events" ADD COLUMN "api_token_id" text COLLATE "C";
