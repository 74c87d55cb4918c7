-- Webhook endpoints, the outbox of their messages and each message's deliveries, OpenID Connect
-- identities and sign-ins in flight, how each session was opened, and an organization's
-- sso_required (docs/integrations.md). auth_state.epoch moves when an organization's sso_required
-- changes, so every cache of resolved sessions reads it again.
CREATE TABLE `oidc_logins` (
	`id` text PRIMARY KEY NOT NULL,
	`state_hash` text NOT NULL,
	`code_verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`return_to` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_logins_state` ON `oidc_logins` (`state_hash`);--> statement-breakpoint
CREATE TABLE `user_identities` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`email` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_identities_subject` ON `user_identities` (`issuer`,`subject`);--> statement-breakpoint
CREATE INDEX `user_identities_user` ON `user_identities` (`user_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`lane` text NOT NULL,
	`event_type` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_status_code` integer,
	`last_error` text,
	`next_attempt_at` text NOT NULL,
	`claimed_until` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_message` ON `webhook_deliveries` (`message_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint_id`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_lane` ON `webhook_deliveries` (`endpoint_id`,`lane`,`seq`) WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_until` text,
	`failing_since` text,
	`disabled_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_organization` ON `webhook_endpoints` (`organization_id`);--> statement-breakpoint
CREATE TABLE `webhook_messages` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`organization_id` text NOT NULL,
	`lane` text NOT NULL,
	`event_type` text NOT NULL,
	`body` text NOT NULL,
	`expanded` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_messages_id` ON `webhook_messages` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_messages_unexpanded` ON `webhook_messages` (`seq`) WHERE "webhook_messages"."expanded" = false;--> statement-breakpoint
ALTER TABLE `auth_tokens` ADD `method` text DEFAULT 'password' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `sso_required` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TRIGGER `auth_state_on_sso_required` AFTER UPDATE OF `sso_required` ON `organizations`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
