CREATE TABLE "webhook_endpoint_hours" (
	"endpoint_id" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "webhook_endpoint_hours_endpoint_id_hour_pk" PRIMARY KEY("endpoint_id","hour")
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "last_success_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "last_failure_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "last_failure_reason" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "failures_since_success" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_for_failing_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoint_hours" ADD CONSTRAINT "webhook_endpoint_hours_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE no action ON UPDATE no action;