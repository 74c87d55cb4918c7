CREATE TABLE `vote_totals` (
	`workshop_id` text NOT NULL,
	`user_id` text NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workshop_id`, `user_id`),
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
