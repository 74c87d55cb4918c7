-- The API token a logged change was made with (docs/api.md#events); null for a session's,
-- and for every change logged before this.
ALTER TABLE `events` ADD `api_token_id` text;
