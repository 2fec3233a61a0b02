CREATE TABLE "console_members" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "console_invitations" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "console_activity" ADD COLUMN "member_id" text;--> statement-breakpoint
ALTER TABLE "console_activity" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "member_id" text;--> statement-breakpoint
-- NOT VALID on the new, empty tables too: no scan, and every row written from here on is checked.
ALTER TABLE "console_invitations" ADD CONSTRAINT "console_invitations_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_invitations" ADD CONSTRAINT "console_invitations_invited_by_console_members_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_members" ADD CONSTRAINT "console_members_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
CREATE INDEX "console_invitations_merchant_idx" ON "console_invitations" USING btree ("merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_members_email_lower_uq" ON "console_members" USING btree (lower("email")) WHERE "console_members"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "console_members_merchant_idx" ON "console_members" USING btree ("merchant_id");--> statement-breakpoint
-- Each merchant's console login becomes its first owner, with the same password; its open sessions
-- stay signed in as that owner. console_sessions is small (sessions expire within a day).
INSERT INTO "console_members" ("id", "merchant_id", "email", "password_hash", "role", "created_at")
	SELECT 'mem_' || substr(md5("id" || clock_timestamp()::text || random()::text), 1, 24), "id", "email", "password_hash", 'owner', "created_at"
	FROM "merchants" WHERE "email" IS NOT NULL;--> statement-breakpoint
UPDATE "console_sessions" s SET "member_id" = m."id" FROM "console_members" m
	WHERE m."merchant_id" = s."merchant_id" AND s."revoked_at" IS NULL;--> statement-breakpoint
-- NOT VALID: rows written from here on are checked; the ones just set point at members made above.
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_member_id_console_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;
