import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery in flight is marked as such, apart from its schedule: an admin may retry a pending delivery by
 * hand (CONTRACT §6), except while an attempt of it is being sent, and a failed hand retry keeps the delivery's
 * automatic schedule. A delivery leased the old way (next_attempt_at moved past the attempt) comes due when
 * that lease ends.
 */
export class WebhookDeliveryInFlight1795400000100 implements MigrationInterface {
  name = 'WebhookDeliveryInFlight1795400000100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD "in_flight_until" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "in_flight_until"`);
  }
}
