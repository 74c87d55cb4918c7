CREATE TABLE `workshop_exports` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`type` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`message` text,
	`file_container` text,
	`file_key` text,
	`requested_by` text,
	`lease_until` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`requested_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `workshop_exports_workshop` ON `workshop_exports` (`workshop_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `workshop_exports_pending` ON `workshop_exports` (`state`,`lease_until`);