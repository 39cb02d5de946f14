import { MigrationInterface, QueryRunner } from 'typeorm';

export class Identity1795334330029 implements MigrationInterface {
  name = 'Identity1795334330029';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "companies" ("id" SERIAL NOT NULL, "name" character varying(255) NOT NULL, "site" character varying(2) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "companies_site_format" CHECK (site ~ '^[A-Z]{2}$'), CONSTRAINT "companies_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_tokens" ("id" SERIAL NOT NULL, "token_hash" bytea NOT NULL, "prefix" character varying(16) NOT NULL, "role" character varying(16) NOT NULL, "user_name" character varying(255) NOT NULL, "company_id" integer, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "api_tokens_company_iff_partner" CHECK ((role = 'partner') = (company_id IS NOT NULL)), CONSTRAINT "api_tokens_role_known" CHECK (role IN ('partner', 'admin', 'logistics')), CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "api_tokens_company_id_idx" ON "api_tokens"  ("company_id", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"  ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("id" SERIAL NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "token_id" integer, "user_name" character varying(255) NOT NULL, "company_id" integer, "action" character varying(64) NOT NULL, "target_type" character varying(32) NOT NULL, "target_id" character varying(64) NOT NULL, "request_id" character varying(128), "changed_fields" text array NOT NULL, CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_token_id_idx" ON "audit_events"  ("token_id", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_events_company_id_idx" ON "audit_events"  ("company_id", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_token_id_fkey" FOREIGN KEY ("token_id") REFERENCES "api_tokens"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_company_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_token_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "api_tokens_company_id_fkey"`);
    await queryRunner.query(`DROP INDEX "public"."audit_events_company_id_idx"`);
    await queryRunner.query(`DROP INDEX "public"."audit_events_token_id_idx"`);
    await queryRunner.query(`DROP TABLE "audit_events"`);
    await queryRunner.query(`DROP INDEX "public"."api_tokens_token_hash_key"`);
    await queryRunner.query(`DROP INDEX "public"."api_tokens_company_id_idx"`);
    await queryRunner.query(`DROP TABLE "api_tokens"`);
    await queryRunner.query(`DROP TABLE "companies"`);
  }
}
