import { MigrationInterface, QueryRunner } from 'typeorm';

export class OrderLifecycle1795336593961 implements MigrationInterface {
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction; it keeps orders writable while it builds. */
  transaction = false as const;
  name = 'OrderLifecycle1795336593961';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN IF NOT EXISTS "version" integer NOT NULL DEFAULT 1`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_state_created_idx" ON "orders"  ("state", "created_at", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."orders_state_created_idx"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "version"`);
  }
}
