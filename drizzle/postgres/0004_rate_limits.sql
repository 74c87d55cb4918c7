CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer NOT NULL,
	"expires_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limits_expires" ON "rate_limits" USING btree ("expires_at");