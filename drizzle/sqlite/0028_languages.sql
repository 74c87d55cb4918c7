-- Languages and time zones (docs/api.md#languages-and-time-zones): a person's locale and IANA time
-- zone, and a workshop's language. Accounts and workshops made before this speak English, in UTC.
ALTER TABLE `users` ADD `locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `time_zone` text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE `workshops` ADD `language` text DEFAULT 'en' NOT NULL;
