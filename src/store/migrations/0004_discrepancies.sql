CREATE TABLE "discrepancies" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_config_id" text,
	"merchant_id" text,
	"kind" text NOT NULL,
	"report" jsonb NOT NULL,
	"expected" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "discrepancies_created_idx" ON "discrepancies" USING btree ("created_at","id");