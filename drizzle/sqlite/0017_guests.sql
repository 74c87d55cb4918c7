-- Guests (CONTRACT §11): users without e-mail or password. SQLite cannot drop a NOT NULL, so the
-- table is rebuilt; migrations run with foreign keys off (`db/sqlite.ts`), so dropping the old table
-- cascades nowhere, and the rows referencing users find them again under the same ids.
CREATE TABLE `__new_users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text,
	`name` text NOT NULL,
	`password_hash` text,
	`guest` integer DEFAULT false NOT NULL,
	`avatar_url` text,
	`plan_name` text DEFAULT 'free' NOT NULL,
	`admin` integer DEFAULT false NOT NULL,
	`confirmed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_users`("id", "email", "name", "password_hash", "guest", "avatar_url", "plan_name", "admin", "confirmed_at", "created_at", "updated_at") SELECT "id", "email", "name", "password_hash", false, "avatar_url", "plan_name", "admin", "confirmed_at", "created_at", "updated_at" FROM `users`;--> statement-breakpoint
DROP TABLE `users`;--> statement-breakpoint
ALTER TABLE `__new_users` RENAME TO `users`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
-- The old table's triggers went with it (`0003_auth_state_triggers.sql`).
CREATE TRIGGER `auth_state_on_user_update` AFTER UPDATE ON `users`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_user_delete` AFTER DELETE ON `users`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
ALTER TABLE `workshops` ADD `allow_guests` integer DEFAULT true NOT NULL;
