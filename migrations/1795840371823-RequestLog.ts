import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log (CONTRACT §4.12): a new table, partitioned by day on `created_at` so that the 14 days kept cost
 * one DROP per day past them (request-log-partitions.ts). No partition is created here: the writer creates the
 * day it writes to, and the periodic job today's and the days ahead. Its indexes are the partitioned table's, so
 * every partition gets them. No foreign key: the log outlives nothing it names, and a write checks nothing.
 */
export class RequestLog1795840371823 implements MigrationInterface {
  name = 'RequestLog1795840371823';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "request_log" ("id" BIGSERIAL NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"company_id" integer NOT NULL, "token_id" integer NOT NULL, "user_name" character varying(255) NOT NULL, ` +
        `"request_id" character varying(128) NOT NULL, "method" character varying(16) NOT NULL, ` +
        `"route" character varying(255), "path" character varying(2048) NOT NULL, "status" smallint NOT NULL, ` +
        `"duration_ms" integer NOT NULL, "idempotency_key" character varying(255), "order_id" integer, ` +
        `"response_body" jsonb, CONSTRAINT "request_log_pkey" PRIMARY KEY ("id", "created_at")) ` +
        `PARTITION BY RANGE ("created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "request_log_company_errors_idx" ON "request_log" ("company_id", "created_at") WHERE status >= 400`,
    );
    await queryRunner.query(`CREATE INDEX "request_log_created_idx" ON "request_log" ("created_at", "id")`);
    await queryRunner.query(
      `CREATE INDEX "request_log_company_request_idx" ON "request_log" ("company_id", "request_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "request_log_company_idx" ON "request_log" ("company_id", "created_at", "id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Dropping the partitioned table drops its partitions and their indexes with it.
    await queryRunner.query(`DROP TABLE "request_log"`);
  }
}
