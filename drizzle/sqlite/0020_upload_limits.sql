-- Upload limits: the workshop an upload's bytes count against (its files' total), and indexes for
-- a user's uploads of the last day and for the sweep of uploads attached to nothing. A deleted
-- workshop leaves its files' rows unowned, to be swept.
ALTER TABLE `files` ADD `workshop_id` text REFERENCES workshops(id) ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX `files_user_created` ON `files` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_workshop` ON `files` (`workshop_id`);--> statement-breakpoint
CREATE INDEX `files_container_created` ON `files` (`container`,`created_at`);--> statement-breakpoint
CREATE INDEX `step_illustrations_file` ON `step_illustrations` (`file_key`);--> statement-breakpoint
CREATE INDEX `attachments_file` ON `attachments` (`file_key`);