import { MigrationInterface, QueryRunner } from 'typeorm';

export class EventsAndIdempotency1795346821090 implements MigrationInterface {
  name = 'EventsAndIdempotency1795346821090';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "events" ("id" BIGSERIAL NOT NULL, "company_id" integer NOT NULL, "order_id" integer NOT NULL, "type" character varying(32) NOT NULL, "data" json NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "transaction_id" bigint NOT NULL, CONSTRAINT "events_type_known" CHECK (type IN ('order.placed', 'order.updated', 'order.comment', 'order.state_changed', 'order.tracking', 'order.detailed_status', 'order.delivery_error')), CONSTRAINT "events_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "events_company_feed_idx" ON "events"  ("company_id", "transaction_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("company_id" integer NOT NULL, "key" character varying(255) NOT NULL, "request_hash" character(64) NOT NULL, "response_status" smallint NOT NULL, "response_body" json NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("company_id", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("id" SERIAL NOT NULL, "company_id" integer NOT NULL, "url" character varying(2048) NOT NULL, "secret" character varying(255) NOT NULL, "active" boolean NOT NULL DEFAULT true, "disabled_reason" character varying(255), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_endpoints_company_idx" ON "webhook_endpoints"  ("company_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" BIGSERIAL NOT NULL, "event_id" bigint NOT NULL, "endpoint_id" integer NOT NULL, "status" character varying(10) NOT NULL DEFAULT 'pending', "attempt_count" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "delivered_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "webhook_deliveries_status_known" CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')), CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries"  ("event_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries"  ("endpoint_id", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"  ("next_attempt_at") WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_attempts" ("id" BIGSERIAL NOT NULL, "delivery_id" bigint NOT NULL, "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL, "status_code" smallint, "duration_ms" integer NOT NULL, "error" character varying(500), CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts"  ("delivery_id", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "events_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "events" ADD CONSTRAINT "events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_fkey"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_fkey"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_company_id_fkey"`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_company_id_fkey"`,
    );
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "events_order_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "events" DROP CONSTRAINT "events_company_id_fkey"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_attempts_delivery_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_due_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_endpoint_idx"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_deliveries_event_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."webhook_endpoints_company_idx"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
    await queryRunner.query(`DROP INDEX "public"."idempotency_keys_expires_at_idx"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP INDEX "public"."events_company_feed_idx"`);
    await queryRunner.query(`DROP TABLE "events"`);
  }
}
