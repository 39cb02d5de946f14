import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The indexes of the administrator's order lookup and timeline (GET /admin/orders, GET /admin/orders/{id}):
 * every company's orders newest first, the audit rows of one object, the events of one subject. Only indexes,
 * built CONCURRENTLY (outside a transaction) so orders, audit rows and events stay writable while they build
 * and the previous version's instances keep serving (CONTRACT §9).
 */
export class AdminOrderLookup1795550000000 implements MigrationInterface {
  transaction = false as const;
  name = 'AdminOrderLookup1795550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "orders_created_idx" ON "orders" ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "audit_events_target_idx" ON "audit_events" ("target_type", "target_id", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "events_subject_idx" ON "events" ("order_id", "subject_type", "id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."events_subject_idx"`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."audit_events_target_idx"`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."orders_created_idx"`);
  }
}
