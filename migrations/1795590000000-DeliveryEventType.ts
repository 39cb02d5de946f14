import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently, online } from './support/online-ddl';

/** Deliveries backfilled per statement: each one a short transaction on a range of the primary key. */
const BACKFILL_BATCH = 10_000;

/**
 * Each delivery keeps its event's type (`event_type`), so the delivery log's type filter reads its own index
 * (`endpoint_id`, `event_type`, `id`) instead of checking every delivery of the endpoint against its event.
 *
 * Written so that the previous version's instances keep serving while it runs (CONTRACT §9), none of its
 * statements holding a lock that stops deliveries for longer than an instant:
 * - instances of the previous version insert deliveries without the type: a trigger copies it from the event
 *   for any delivery inserted without one, from before the backfill on (it is a no-op for this version's
 *   inserts, which write the type themselves);
 * - the backfill walks the primary key in batches, so it never holds many rows locked (the dispatcher's claim
 *   skips locked rows) nor runs a statement near the statement timeout;
 * - NOT NULL is proven by a CHECK added NOT VALID and validated (reads the table without blocking writes), so
 *   SET NOT NULL skips its own scan under the exclusive lock; the CHECK is dropped after;
 * - the index is built CONCURRENTLY, which cannot run in a transaction: so none of this does;
 * - the scans (VALIDATE, the index build) run without the statement timeout, and every statement waits at most
 *   5 s for a lock (online-ddl.ts).
 */
export class DeliveryEventType1795590000000 implements MigrationInterface {
  transaction = false as const;
  name = 'DeliveryEventType1795590000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await online(queryRunner, async () => {
      await queryRunner.query(
        `ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "event_type" character varying(32)`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE FUNCTION "webhook_deliveries_event_type_from_event"() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           SELECT type INTO NEW.event_type FROM events WHERE id = NEW.event_id;
           RETURN NEW;
         END $$`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE TRIGGER "webhook_deliveries_event_type" BEFORE INSERT ON "webhook_deliveries" ` +
          `FOR EACH ROW WHEN (NEW.event_type IS NULL) EXECUTE FUNCTION "webhook_deliveries_event_type_from_event"()`,
      );
      // Every delivery inserted from now on has its type: the rows to fill are at most those there now.
      const [ids] = (await queryRunner.query(
        `SELECT min(id) AS first, max(id) AS last FROM "webhook_deliveries"`,
      )) as { first: string | null; last: string | null }[];
      if (ids.first !== null && ids.last !== null) {
        for (let from = BigInt(ids.first); from <= BigInt(ids.last); from += BigInt(BACKFILL_BATCH)) {
          await queryRunner.query(
            `UPDATE "webhook_deliveries" d SET "event_type" = e.type FROM "events" e ` +
              `WHERE e.id = d.event_id AND d.id >= $1 AND d.id < $2 AND d.event_type IS NULL`,
            [from.toString(), (from + BigInt(BACKFILL_BATCH)).toString()],
          );
        }
      }
      await queryRunner.query(
        `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT IF EXISTS "webhook_deliveries_event_type_not_null", ` +
          `ADD CONSTRAINT "webhook_deliveries_event_type_not_null" CHECK ("event_type" IS NOT NULL) NOT VALID`,
      );
      await queryRunner.query(
        `ALTER TABLE "webhook_deliveries" VALIDATE CONSTRAINT "webhook_deliveries_event_type_not_null"`,
      );
      await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_type" SET NOT NULL`);
      await queryRunner.query(
        `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_not_null"`,
      );
      await createIndexConcurrently(
        queryRunner,
        'webhook_deliveries_endpoint_type_idx',
        `ON "webhook_deliveries" ("endpoint_id", "event_type", "id")`,
      );
    });
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP INDEX CONCURRENTLY IF EXISTS "public"."webhook_deliveries_endpoint_type_idx"`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS "webhook_deliveries_event_type" ON "webhook_deliveries"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS "webhook_deliveries_event_type_from_event"()`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "event_type"`);
  }
}
