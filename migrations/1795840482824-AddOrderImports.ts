import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk imports (CONTRACT §4.11): the import with its counts and worker lease, and its lines, each with its sealed
 * body until it has its result (the order placed, or the errors). New tables: nothing to do online.
 */
export class AddOrderImports1795840482824 implements MigrationInterface {
  name = 'AddOrderImports1795840482824';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "order_imports" ("id" SERIAL NOT NULL, "company_id" integer NOT NULL, "format" character varying(8) NOT NULL, "dry_run" boolean NOT NULL, "state" character varying(16) NOT NULL DEFAULT 'queued', "total" integer NOT NULL, "placed" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "idempotency_key" character varying(255), "file_sha256" character(64) NOT NULL, "token_id" integer, "user_name" character varying(255) NOT NULL, "request_id" character varying(255), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "lease_owner" character varying(64), "lease_until" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', CONSTRAINT "order_imports_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "order_imports_open_idx" ON "order_imports"  ("company_id", "id") WHERE state IN ('queued', 'running')`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "order_imports_company_key_idx" ON "order_imports"  ("company_id", "idempotency_key") WHERE idempotency_key IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "order_imports_created_idx" ON "order_imports"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "order_imports_company_created_idx" ON "order_imports"  ("company_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "order_import_lines" ("import_id" integer NOT NULL, "line" integer NOT NULL, "body" text, "result" character varying(8), "order_id" integer, "errors" json, CONSTRAINT "order_import_lines_pkey" PRIMARY KEY ("import_id", "line"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "order_imports" ADD CONSTRAINT "order_imports_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "order_import_lines" ADD CONSTRAINT "order_import_lines_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "order_imports"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "order_import_lines" DROP CONSTRAINT "order_import_lines_import_id_fkey"`,
    );
    await queryRunner.query(`ALTER TABLE "order_imports" DROP CONSTRAINT "order_imports_company_id_fkey"`);
    await queryRunner.query(`DROP TABLE "order_import_lines"`);
    await queryRunner.query(`DROP INDEX "public"."order_imports_company_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."order_imports_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."order_imports_company_key_idx"`);
    await queryRunner.query(`DROP INDEX "public"."order_imports_open_idx"`);
    await queryRunner.query(`DROP TABLE "order_imports"`);
  }
}
