-- auth_state.epoch also moves when an organization changes: a workshop shows its owner, which may
-- be an organization, and cached answers are checked against the epoch.
CREATE TRIGGER `auth_state_on_organization_update` AFTER UPDATE ON `organizations`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_organization_delete` AFTER DELETE ON `organizations`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
