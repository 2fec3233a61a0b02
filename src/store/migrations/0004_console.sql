CREATE TABLE "console_activity" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"subject" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"ip" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "console_sign_in_failures" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "console_sign_in_failures_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "merchant_logos" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"data" text NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "brand_color" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "logo_hash" text;--> statement-breakpoint
ALTER TABLE "console_activity" ADD CONSTRAINT "console_activity_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_logos" ADD CONSTRAINT "merchant_logos_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_activity_merchant_idx" ON "console_activity" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_activity_refund_uq" ON "console_activity" USING btree ("merchant_id","subject") WHERE "console_activity"."action" = 'refund_created';--> statement-breakpoint
CREATE INDEX "console_sessions_merchant_idx" ON "console_sessions" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "events_session_idx" ON "events" USING btree ("merchant_id","mode",("data"->>'sessionId'));