CREATE TABLE `canvases` (
	`id` text PRIMARY KEY NOT NULL,
	`workshop_id` text NOT NULL,
	`name` text NOT NULL,
	`background_id` text NOT NULL,
	`background_cols` real NOT NULL,
	`background_rows` real NOT NULL,
	`image` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `canvases_workshop_id_unique` ON `canvases` (`workshop_id`);--> statement-breakpoint
CREATE TABLE `yjs_documents` (
	`workshop_id` text PRIMARY KEY NOT NULL,
	`state` blob NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `yjs_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workshop_id` text NOT NULL,
	`update` blob NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `yjs_updates_workshop` ON `yjs_updates` (`workshop_id`,`id`);--> statement-breakpoint
CREATE TABLE `zones` (
	`id` text PRIMARY KEY NOT NULL,
	`canvas_id` text NOT NULL,
	`workshop_id` text NOT NULL,
	`name` text NOT NULL,
	`x` real NOT NULL,
	`y` real NOT NULL,
	`rows` real NOT NULL,
	`cols` real NOT NULL,
	`cluster_id` text,
	`position` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`canvas_id`) REFERENCES `canvases`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workshop_id`) REFERENCES `workshops`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `zones_canvas` ON `zones` (`canvas_id`,`position`);--> statement-breakpoint
CREATE INDEX `zones_workshop` ON `zones` (`workshop_id`);