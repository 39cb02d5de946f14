import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each webhook attempt keeps what was sent and what came back (CONTRACT §6): nullable columns, and a boolean
 * with a constant default, so adding them rewrites nothing and the previous version's instances keep recording
 * attempts while it runs (theirs simply leave the new columns empty). The indexes serve the delivery log's
 * status filter and the retention purge; built CONCURRENTLY, so deliveries stay writable meanwhile.
 */
export class WebhookAttemptExchange1795560000000 implements MigrationInterface {
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction. */
  transaction = false as const;
  name = 'WebhookAttemptExchange1795560000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" ADD COLUMN IF NOT EXISTS "request_headers" jsonb, ` +
        `ADD COLUMN IF NOT EXISTS "response_headers" jsonb, ADD COLUMN IF NOT EXISTS "response_body" text, ` +
        `ADD COLUMN IF NOT EXISTS "response_body_truncated" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "request_body" text`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_endpoint_status_idx" ON "webhook_deliveries"  ("endpoint_id", "status", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_deliveries_created_idx" ON "webhook_deliveries"  ("created_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."webhook_deliveries_created_idx"`);
    await queryRunner.query(
      `DROP INDEX CONCURRENTLY IF EXISTS "public"."webhook_deliveries_endpoint_status_idx"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "request_body"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" DROP COLUMN "response_body_truncated", DROP COLUMN "response_body", ` +
        `DROP COLUMN "response_headers", DROP COLUMN "request_headers"`,
    );
  }
}
