ALTER TABLE "records" ADD COLUMN "memo" text;
--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "attempts" bigint DEFAULT 0 NOT NULL;
