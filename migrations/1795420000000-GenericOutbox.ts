import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox names no order type: an event is about a subject (`subject_type`, and its id in the column that
 * keeps its first name, `order_id`), and the event types are the ones the publishing modules declare, so a new one
 * needs no migration. Additive, so that instances of the previous version keep writing events while it runs
 * (CONTRACT §9): they insert no subject type and get the default, `order`. The events of an order are no longer
 * deleted with it by a foreign key; orders are never deleted but with their company, whose events go with it
 * (events_company_id_fkey).
 */
export class GenericOutbox1795420000000 implements MigrationInterface {
  name = 'GenericOutbox1795420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "events_order_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "events_type_known"`);
    await queryRunner.query(
      `ALTER TABLE "events" ADD "subject_type" character varying(32) NOT NULL DEFAULT 'order'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "events" WHERE "subject_type" <> 'order'`);
    await queryRunner.query(`ALTER TABLE "events" DROP COLUMN "subject_type"`);
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "events_type_known" CHECK (type IN ('order.placed', 'order.updated', 'order.comment', 'order.state_changed', 'order.tracking', 'order.detailed_status', 'order.delivery_error'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }
}
