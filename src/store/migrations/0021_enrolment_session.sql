-- The console session that began a second-factor enrolment: only it is shown the pending secret and
-- may confirm it. Rows begun before (null) are shown to no session; the member begins again.
ALTER TABLE "console_second_factors" ADD COLUMN "began_by_token_hash" text;
