CREATE INDEX CONCURRENTLY "records_memo_idx" ON "records" ("memo");
