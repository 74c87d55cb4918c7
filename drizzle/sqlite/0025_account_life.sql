-- The User-Agent of the request that opened a session, for the list of sessions, and the new
-- address a change-of-address link confirms (docs/api.md#an-accounts-life); null for those made
-- before this.
ALTER TABLE `auth_tokens` ADD `user_agent` text;--> statement-breakpoint
ALTER TABLE `one_time_tokens` ADD `email` text;
