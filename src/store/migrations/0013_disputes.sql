CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"record_id" text NOT NULL,
	"session_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" text NOT NULL,
	"provider" text NOT NULL,
	"provider_config_id" text,
	"provider_ref" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"status" text NOT NULL,
	"due_by" timestamp (3) with time zone,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "disputes_record_ref_uq" UNIQUE("record_id","provider_ref")
);
