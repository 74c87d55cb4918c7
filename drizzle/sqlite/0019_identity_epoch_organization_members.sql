-- auth_state.epoch also moves when an organization's members change: its admins act as the
-- facilitators of its workshops, and a private step's card list, kept per reader, shows the
-- facilitators' cards; cached answers are checked against the epoch.
CREATE TRIGGER `auth_state_on_organization_member_insert` AFTER INSERT ON `organization_members`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_organization_member_update` AFTER UPDATE ON `organization_members`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `auth_state_on_organization_member_delete` AFTER DELETE ON `organization_members`
BEGIN
  UPDATE `auth_state` SET `epoch` = `epoch` + 1 WHERE `id` = 1;
END;
