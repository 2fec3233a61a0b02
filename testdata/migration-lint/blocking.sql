CREATE INDEX "records_note_idx" ON "records" ("note");
--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "channel_code" text NOT NULL;
--> statement-breakpoint
ALTER TABLE "records" RENAME COLUMN "note" TO "memo";
