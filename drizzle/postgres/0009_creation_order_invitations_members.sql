-- Creation order for two more lists whose rows can share a millisecond: the invitations of one
-- request, and the members a copy or an import adds together. As in 0001, a column named and
-- numbered like SQLite's rowid, which Drizzle's schema does not map.
ALTER TABLE "invitations" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
ALTER TABLE "workshop_members" ADD COLUMN "rowid" bigint GENERATED ALWAYS AS IDENTITY;
