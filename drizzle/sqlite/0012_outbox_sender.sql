ALTER TABLE `outbox` ADD `sender_id` text;--> statement-breakpoint
CREATE INDEX `outbox_sender` ON `outbox` (`sender_id`,`created_at`);