CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`email` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`token_hash` text NOT NULL,
	`content` text NOT NULL,
	`invited_by` text NOT NULL,
	`accepted_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`accepted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_token` ON `invitations` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_pending_email` ON `invitations` (`workshop_id`,`email`) WHERE state = 'pending';--> statement-breakpoint
CREATE INDEX `invitations_workshop` ON `invitations` (`workshop_id`,`created_at`);