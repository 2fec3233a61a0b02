CREATE TABLE "statement_file_chunks" (
	"statement_id" text NOT NULL,
	"name" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "statement_file_chunks_statement_id_name_seq_pk" PRIMARY KEY("statement_id","name","seq")
);
--> statement-breakpoint
ALTER TABLE "statement_file_chunks" ADD CONSTRAINT "statement_file_chunks_statement_id_name_statement_files_statement_id_name_fk" FOREIGN KEY ("statement_id","name") REFERENCES "public"."statement_files"("statement_id","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The files kept before (one bytea each) move into chunks of 1 MiB; an empty file has none.
INSERT INTO "statement_file_chunks" ("statement_id", "name", "seq", "data")
SELECT f."statement_id", f."name", g.seq, substring(f."body" from g.seq * 1048576 + 1 for 1048576)
FROM "statement_files" f, generate_series(0, (length(f."body") + 1048575) / 1048576 - 1) AS g(seq);--> statement-breakpoint
ALTER TABLE "statement_files" DROP COLUMN "body";