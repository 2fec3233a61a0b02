CREATE TABLE "console_password_resets" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"member_id" text NOT NULL,
	"made_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "member_emails" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"locale" text NOT NULL,
	"link_box" text,
	"link_expires_at" timestamp (3) with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"lease_until" timestamp (3) with time zone,
	"lease_token" text,
	"last_error" text,
	"message_id" text,
	"sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- NOT VALID on the new, empty tables too: no scan, and every row written from here on is checked.
ALTER TABLE "console_password_resets" ADD CONSTRAINT "console_password_resets_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_password_resets" ADD CONSTRAINT "console_password_resets_member_id_console_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_password_resets" ADD CONSTRAINT "console_password_resets_made_by_console_members_id_fk" FOREIGN KEY ("made_by") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "member_emails" ADD CONSTRAINT "member_emails_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;