ALTER TABLE `outbox` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `next_attempt_at` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `claimed_until` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `failed_at` text;--> statement-breakpoint
CREATE INDEX `outbox_pending` ON `outbox` (`sent_at`,`failed_at`,`next_attempt_at`);