CREATE TABLE "reconciliation_items" (
	"id" text PRIMARY KEY NOT NULL,
	"statement_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" text NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"category" text NOT NULL,
	"till" jsonb,
	"line" jsonb,
	"differences" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fingerprint" text NOT NULL,
	"expected_until" timestamp (3) with time zone,
	"acknowledged_at" timestamp (3) with time zone,
	"acknowledged_by" text,
	"acknowledgement_note" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statement_files" (
	"statement_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"body" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_files_statement_id_name_pk" PRIMARY KEY("statement_id","name")
);
--> statement-breakpoint
CREATE TABLE "statement_lines" (
	"statement_id" text NOT NULL,
	"file" text NOT NULL,
	"line_no" integer NOT NULL,
	"provider_config_id" text NOT NULL,
	"kind" text NOT NULL,
	"till_ref" text,
	"provider_ref" text,
	"payment_till_ref" text,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"fee" bigint,
	"at" timestamp (3) with time zone NOT NULL,
	"fields" jsonb NOT NULL,
	CONSTRAINT "statement_lines_statement_id_file_line_no_pk" PRIMARY KEY("statement_id","file","line_no")
);
--> statement-breakpoint
CREATE TABLE "statements" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" text NOT NULL,
	"provider" text NOT NULL,
	"provider_config_id" text NOT NULL,
	"day" date NOT NULL,
	"zone" text NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"tries" integer DEFAULT 0 NOT NULL,
	"next_try_at" timestamp (3) with time zone,
	"leased_until" timestamp (3) with time zone,
	"lease_token" text,
	"fetched_at" timestamp (3) with time zone,
	"reconciled_at" timestamp (3) with time zone,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"totals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reconciliation_items" ADD CONSTRAINT "reconciliation_items_statement_id_statements_id_fk" FOREIGN KEY ("statement_id") REFERENCES "public"."statements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_files" ADD CONSTRAINT "statement_files_statement_id_statements_id_fk" FOREIGN KEY ("statement_id") REFERENCES "public"."statements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_statement_id_statements_id_fk" FOREIGN KEY ("statement_id") REFERENCES "public"."statements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statements" ADD CONSTRAINT "statements_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statements" ADD CONSTRAINT "statements_provider_config_id_provider_configs_id_fk" FOREIGN KEY ("provider_config_id") REFERENCES "public"."provider_configs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_items_key_uq" ON "reconciliation_items" USING btree ("statement_id","key");--> statement-breakpoint
CREATE INDEX "reconciliation_items_list_idx" ON "reconciliation_items" USING btree ("statement_id","category","id");--> statement-breakpoint
CREATE INDEX "reconciliation_items_open_idx" ON "reconciliation_items" USING btree ("merchant_id","mode") WHERE "reconciliation_items"."acknowledged_at" is null and "reconciliation_items"."category" not in ('matched', 'expected');--> statement-breakpoint
CREATE INDEX "reconciliation_items_expected_idx" ON "reconciliation_items" USING btree ("expected_until") WHERE "reconciliation_items"."category" = 'expected';--> statement-breakpoint
CREATE INDEX "statement_lines_ref_idx" ON "statement_lines" USING btree ("provider_config_id","kind","till_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "statements_config_day_uq" ON "statements" USING btree ("provider_config_id","day");--> statement-breakpoint
CREATE INDEX "statements_scope_idx" ON "statements" USING btree ("merchant_id","mode","day");--> statement-breakpoint
CREATE INDEX "records_attempt_idx" ON "records" USING btree ("attempt_id");--> statement-breakpoint
CREATE INDEX "records_config_paid_idx" ON "records" USING btree ("provider_config_id","paid_at");--> statement-breakpoint
CREATE INDEX "refunds_provider_ref_idx" ON "refunds" USING btree ("provider_ref") WHERE "refunds"."initiated_by" = 'provider';