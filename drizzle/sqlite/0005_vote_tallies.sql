CREATE TABLE `vote_tallies` (
	`card_id` text NOT NULL,
	`user_id` text NOT NULL,
	`workshop_id` text NOT NULL,
	`positive` integer DEFAULT 0 NOT NULL,
	`negative` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`card_id`, `user_id`),
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vote_tallies_workshop_user` ON `vote_tallies` (`workshop_id`,`user_id`);