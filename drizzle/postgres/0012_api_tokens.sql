-- Scoped API tokens (docs/integrations.md). auth_state.epoch moves when one is revoked or deleted,
-- so every instance's cache of resolved tokens reads it again at once; last_used_at writes move nothing.
-- Text in the "C" collation, as every text column (0010).
CREATE TABLE "api_tokens" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text COLLATE "C",
	"user_id" text COLLATE "C",
	"created_by" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"scopes" json NOT NULL,
	"prefix" text COLLATE "C" NOT NULL,
	"token_hash" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"expires_at" text COLLATE "C",
	"last_used_at" text COLLATE "C",
	"revoked_at" text COLLATE "C"
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_hash_unique" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_organization" ON "api_tokens" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "api_tokens_user" ON "api_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE TRIGGER "auth_state_on_api_token_revoke" AFTER UPDATE OF "revoked_at" ON "api_tokens" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
--> statement-breakpoint
CREATE TRIGGER "auth_state_on_api_token_delete" AFTER DELETE ON "api_tokens" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
