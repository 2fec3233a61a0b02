-- Console logins: one merchant per email whatever its case, stored lower-cased.
-- Existing duplicates (emails equal but for case): the oldest merchant (created_at, then id) keeps
-- the login. Every other one loses its console login (email and password hash set to NULL, its
-- console sessions ended) and gets a 'console_login_cleared' activity entry naming the email and
-- the merchant that kept it; an operator can give it a new login with `till merchants set-password`.
-- Nothing else of it changes (keys, payments, endpoints).
ALTER TABLE "merchants" DROP CONSTRAINT "merchants_email_unique";--> statement-breakpoint
WITH ranked AS (
	SELECT id, email, first_value(id) OVER w AS kept_by, row_number() OVER w AS n
	FROM merchants WHERE email IS NOT NULL
	WINDOW w AS (PARTITION BY lower(email) ORDER BY created_at, id)
), cleared AS (
	UPDATE merchants m SET email = NULL, password_hash = NULL FROM ranked r WHERE m.id = r.id AND r.n > 1
), logged AS (
	INSERT INTO console_activity (merchant_id, actor, action, detail)
	SELECT id, 'operator', 'console_login_cleared', jsonb_build_object('email', email, 'keptBy', kept_by) FROM ranked WHERE n > 1
)
UPDATE console_sessions SET revoked_at = now()
WHERE revoked_at IS NULL AND merchant_id IN (SELECT id FROM ranked WHERE n > 1);--> statement-breakpoint
UPDATE "merchants" SET "email" = lower("email") WHERE "email" <> lower("email");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_email_lower_uq" ON "merchants" USING btree (lower("email"));--> statement-breakpoint
-- Webhook secrets: every replaced secret still in its overlap signs until its own expiry (a list,
-- where one previous secret was kept); the one previous secret still signing is carried over.
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secrets" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "webhook_endpoints"
SET "previous_secrets" = jsonb_build_array(jsonb_build_object(
	'secretEnc', "previous_secret_enc",
	'expiresAt', (extract(epoch FROM "previous_secret_expires_at") * 1000)::bigint))
WHERE "previous_secret_enc" IS NOT NULL AND "previous_secret_expires_at" > now();--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret_enc";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret_expires_at";
