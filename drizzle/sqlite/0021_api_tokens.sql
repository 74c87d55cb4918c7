-- Scoped API tokens (docs/integrations.md). auth_state.epoch moves when one is revoked or deleted,
-- so every instance's cache of resolved tokens reads it again at once; last_used_at writes move nothing.
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text,
	`user_id` text,
	`created_by` text NOT NULL,
	`name` text NOT NULL,
	`scopes` text NOT NULL,
	`prefix` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_organization` ON `api_tokens` (`organization_id`);--> statement-breakpoint
CREATE INDEX `api_tokens_user` ON `api_tokens` (`user_id`);--> statement-breakpoint
CREATE TRIGGER `auth_state_on_api_token_revoke` AFTER UPDATE OF `revoked_at` ON `api_tokens`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_api_token_delete` AFTER DELETE ON `api_tokens`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
