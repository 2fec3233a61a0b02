CREATE TABLE "console_recovery_codes" (
	"member_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "console_recovery_codes_member_id_code_hash_pk" PRIMARY KEY("member_id","code_hash")
);
--> statement-breakpoint
CREATE TABLE "console_second_factors" (
	"member_id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"secret_enc" text NOT NULL,
	"confirmed_at" timestamp (3) with time zone,
	"last_step" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_session_checks" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"checked_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchant_console_policies" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"require_second_factor" boolean DEFAULT false NOT NULL,
	"refund_limits" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- NOT VALID on the new, empty tables: no scan, and every row written from here on is checked.
ALTER TABLE "console_recovery_codes" ADD CONSTRAINT "console_recovery_codes_member_id_console_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_second_factors" ADD CONSTRAINT "console_second_factors_member_id_console_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."console_members"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_second_factors" ADD CONSTRAINT "console_second_factors_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "console_session_checks" ADD CONSTRAINT "console_session_checks_session_fk" FOREIGN KEY ("token_hash") REFERENCES "public"."console_sessions"("token_hash") ON DELETE cascade ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "merchant_console_policies" ADD CONSTRAINT "merchant_console_policies_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
CREATE INDEX "console_second_factors_merchant_idx" ON "console_second_factors" USING btree ("merchant_id");