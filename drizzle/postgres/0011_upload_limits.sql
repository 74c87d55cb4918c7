-- Upload limits: the workshop an upload's bytes count against (its files' total), and indexes for
-- a user's uploads of the last day and for the sweep of uploads attached to nothing. Text in the
-- "C" collation, as every text column (0010).
ALTER TABLE "files" ADD COLUMN "workshop_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_workshop_id_workshops_id_fk" FOREIGN KEY ("workshop_id") REFERENCES "public"."workshops"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "step_illustrations_file" ON "step_illustrations" USING btree ("file_key");--> statement-breakpoint
CREATE INDEX "attachments_file" ON "attachments" USING btree ("file_key");--> statement-breakpoint
CREATE INDEX "files_user_created" ON "files" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "files_workshop" ON "files" USING btree ("workshop_id");--> statement-breakpoint
CREATE INDEX "files_container_created" ON "files" USING btree ("container","created_at");