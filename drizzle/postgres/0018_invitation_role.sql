-- The role an invitation gives whoever accepts it (docs/api.md#invitations): `participant`, as
-- every invitation made before this gave, or `facilitator`. Text in the "C" collation, as every
-- text column (0010).
ALTER TABLE "invitations" ADD COLUMN "role" text COLLATE "C" DEFAULT 'participant' NOT NULL;
