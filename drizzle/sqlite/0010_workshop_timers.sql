CREATE TABLE `workshop_timers` (
	`workshop_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`duration_s` integer NOT NULL,
	`ends_at` text,
	`remaining_ms` integer DEFAULT 0 NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
