-- How the session that made a personal API token was opened (single sign-on holds for tokens made
-- from a password session; those made before this are taken as made from one), a one-time value
-- of the console's tab carried through a provider sign-in, and whether an account's address was
-- proven when a provider identity was linked to it (proving the address ends those linked before),
-- and which identity a session opened through the provider came by (a proof sent with it keeps that one).
ALTER TABLE `api_tokens` ADD `sign_in_method` text;--> statement-breakpoint
UPDATE `api_tokens` SET `sign_in_method` = 'password' WHERE `user_id` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `oidc_logins` ADD `client_state` text;--> statement-breakpoint
ALTER TABLE `user_identities` ADD `address_proven` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `user_identities` SET `address_proven` = true WHERE EXISTS (SELECT 1 FROM `users` WHERE `users`.`id` = `user_identities`.`user_id` AND `users`.`confirmed_at` IS NOT NULL AND `users`.`confirmed_at` <= `user_identities`.`created_at`);--> statement-breakpoint
ALTER TABLE `auth_tokens` ADD `identity_id` text;
