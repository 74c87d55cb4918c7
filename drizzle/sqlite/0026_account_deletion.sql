-- Deleting an account (docs/api.md#an-accounts-life): the user's row stays as a scrubbed tombstone
-- (`deleted_at`), so the votes and ratings it cast stay counted, and what it wrote in others'
-- workshops loses its author (`user_id` null). SQLite cannot drop a NOT NULL, so the four tables are
-- rebuilt; migrations run with foreign keys off (`db/sqlite.ts`), so dropping the old tables cascades
-- nowhere. None of them has triggers.
CREATE TABLE `__new_attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`card_id` text NOT NULL,
	`user_id` text,
	`author_visibility` text DEFAULT 'shown' NOT NULL,
	`name` text NOT NULL,
	`file_key` text NOT NULL,
	`container` text NOT NULL,
	`mimetype` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_attachments`("id", "workshop_id", "card_id", "user_id", "author_visibility", "name", "file_key", "container", "mimetype", "size", "created_at") SELECT "id", "workshop_id", "card_id", "user_id", "author_visibility", "name", "file_key", "container", "mimetype", "size", "created_at" FROM `attachments`;--> statement-breakpoint
DROP TABLE `attachments`;--> statement-breakpoint
ALTER TABLE `__new_attachments` RENAME TO `attachments`;--> statement-breakpoint
CREATE INDEX `attachments_card` ON `attachments` (`card_id`);--> statement-breakpoint
CREATE INDEX `attachments_workshop` ON `attachments` (`workshop_id`);--> statement-breakpoint
CREATE INDEX `attachments_file` ON `attachments` (`file_key`);--> statement-breakpoint
CREATE TABLE `__new_cards` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`number` integer NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`content` text DEFAULT '' NOT NULL,
	`color` text,
	`aside` integer DEFAULT false NOT NULL,
	`parent_id` text,
	`position` integer NOT NULL,
	`x` real,
	`y` real,
	`user_id` text,
	`author_visibility` text DEFAULT 'shown' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_cards`("id", "workshop_id", "number", "type", "title", "content", "color", "aside", "parent_id", "position", "x", "y", "user_id", "author_visibility", "created_at", "updated_at") SELECT "id", "workshop_id", "number", "type", "title", "content", "color", "aside", "parent_id", "position", "x", "y", "user_id", "author_visibility", "created_at", "updated_at" FROM `cards`;--> statement-breakpoint
DROP TABLE `cards`;--> statement-breakpoint
ALTER TABLE `__new_cards` RENAME TO `cards`;--> statement-breakpoint
CREATE INDEX `cards_workshop_parent_position` ON `cards` (`workshop_id`,`parent_id`,`position`);--> statement-breakpoint
CREATE INDEX `cards_parent` ON `cards` (`parent_id`);--> statement-breakpoint
CREATE TABLE `__new_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`card_id` text NOT NULL,
	`user_id` text,
	`author_visibility` text DEFAULT 'shown' NOT NULL,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_comments`("id", "workshop_id", "card_id", "user_id", "author_visibility", "content", "created_at") SELECT "id", "workshop_id", "card_id", "user_id", "author_visibility", "content", "created_at" FROM `comments`;--> statement-breakpoint
DROP TABLE `comments`;--> statement-breakpoint
ALTER TABLE `__new_comments` RENAME TO `comments`;--> statement-breakpoint
CREATE INDEX `comments_card` ON `comments` (`card_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `comments_workshop` ON `comments` (`workshop_id`);--> statement-breakpoint
CREATE TABLE `__new_items` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`card_id` text NOT NULL,
	`section_id` text NOT NULL,
	`user_id` text,
	`author_visibility` text DEFAULT 'shown' NOT NULL,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`section_id`) REFERENCES `sections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_items`("id", "workshop_id", "card_id", "section_id", "user_id", "author_visibility", "content", "created_at", "updated_at") SELECT "id", "workshop_id", "card_id", "section_id", "user_id", "author_visibility", "content", "created_at", "updated_at" FROM `items`;--> statement-breakpoint
DROP TABLE `items`;--> statement-breakpoint
ALTER TABLE `__new_items` RENAME TO `items`;--> statement-breakpoint
CREATE INDEX `items_card` ON `items` (`card_id`,`section_id`);--> statement-breakpoint
CREATE INDEX `items_workshop` ON `items` (`workshop_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `deleted_at` text;