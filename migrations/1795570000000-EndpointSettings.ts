import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoint settings (CONTRACT §6): the event types an endpoint receives (null: all), disabling it (its
 * deliveries are queued `paused`), and a secret rotation's overlap (the previous secret, sealed, and when it
 * stops signing). Additive, so that instances of the previous version keep serving while it runs (CONTRACT §9):
 * they read none of the new columns, and the status check only grows (`paused`, which they never write).
 */
export class EndpointSettings1795570000000 implements MigrationInterface {
  name = 'EndpointSettings1795570000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD "previous_secret" character varying(255)`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD "event_types" character varying(64) array`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" ADD "disabled_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_status_known"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_known" CHECK (status IN ('pending', 'paused', 'succeeded', 'failed', 'cancelled'))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_paused_idx" ON "webhook_deliveries" ("endpoint_id", "created_at") WHERE status = 'paused'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_paused_idx"`);
    await queryRunner.query(`UPDATE "webhook_deliveries" SET "status" = 'pending' WHERE "status" = 'paused'`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_status_known"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_known" CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled'))`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "disabled_at"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "event_types"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret_expires_at"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret"`);
  }
}
