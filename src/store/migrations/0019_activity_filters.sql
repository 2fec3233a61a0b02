-- Built concurrently: console_activity may be large, and its writes (every console action) go on meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "console_activity_member_idx" ON "console_activity" USING btree ("merchant_id","member_id","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "console_activity_action_idx" ON "console_activity" USING btree ("merchant_id","action","id");--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "console_activity_created_idx" ON "console_activity" USING btree ("created_at");
