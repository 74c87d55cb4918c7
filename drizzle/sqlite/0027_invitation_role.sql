-- The role an invitation gives whoever accepts it (docs/api.md#invitations): `participant`, as
-- every invitation made before this gave, or `facilitator`.
ALTER TABLE `invitations` ADD `role` text DEFAULT 'participant' NOT NULL;
