CREATE TABLE `idempotency_keys` (
	`owner` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`status` integer,
	`headers` text,
	`body` blob,
	`locked_until` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`owner`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires` ON `idempotency_keys` (`expires_at`);