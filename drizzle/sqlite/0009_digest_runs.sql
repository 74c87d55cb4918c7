CREATE TABLE `digest_runs` (
	`day` text PRIMARY KEY NOT NULL,
	`started_at` text NOT NULL
);
