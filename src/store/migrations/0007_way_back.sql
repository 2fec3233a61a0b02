ALTER TABLE "merchants" ADD COLUMN "support_url" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "cancel_url" text;