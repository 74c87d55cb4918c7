-- Languages and time zones (docs/api.md#languages-and-time-zones): a person's locale and IANA time
-- zone, and a workshop's language. Accounts and workshops made before this speak English, in UTC.
-- Text in the "C" collation, as every text column (0010).
ALTER TABLE "users" ADD COLUMN "locale" text COLLATE "C" DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "time_zone" text COLLATE "C" DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "workshops" ADD COLUMN "language" text COLLATE "C" DEFAULT 'en' NOT NULL;
