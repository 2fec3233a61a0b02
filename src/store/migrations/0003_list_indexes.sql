DROP INDEX "sessions_merchant_idx";--> statement-breakpoint
DROP INDEX "refunds_record_idx";--> statement-breakpoint
CREATE INDEX "records_scope_idx" ON "records" USING btree ("merchant_id","mode","created_at","id");--> statement-breakpoint
CREATE INDEX "records_scope_status_idx" ON "records" USING btree ("merchant_id","mode","status","created_at","id");--> statement-breakpoint
CREATE INDEX "refunds_scope_idx" ON "refunds" USING btree ("merchant_id","mode","created_at","id");--> statement-breakpoint
CREATE INDEX "sessions_scope_idx" ON "sessions" USING btree ("merchant_id","mode","created_at","id");--> statement-breakpoint
CREATE INDEX "sessions_scope_status_idx" ON "sessions" USING btree ("merchant_id","mode","status","created_at","id");--> statement-breakpoint
CREATE INDEX "sessions_metadata_idx" ON "sessions" USING gin ("metadata");--> statement-breakpoint
CREATE INDEX "refunds_record_idx" ON "refunds" USING btree ("record_id","created_at","id");