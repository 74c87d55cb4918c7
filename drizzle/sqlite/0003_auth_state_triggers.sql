-- The epoch that caches of resolved bearer tokens are checked against (see auth_state in the schema).
INSERT INTO `auth_state` (`id`, `epoch`) VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_token_delete` AFTER DELETE ON `auth_tokens`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_user_update` AFTER UPDATE ON `users`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_user_delete` AFTER DELETE ON `users`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
