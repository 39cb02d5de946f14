import { MigrationInterface, QueryRunner } from 'typeorm';

export class PartnerApi1795335501775 implements MigrationInterface {
  name = 'PartnerApi1795335501775';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "products" ("id" SERIAL NOT NULL, "name" character varying(255) NOT NULL, "active" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "products_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "products_active_idx" ON "products"  ("active", "id") `);
    await queryRunner.query(
      `CREATE TABLE "product_variations" ("id" SERIAL NOT NULL, "product_id" integer NOT NULL, "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "product_variations_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "product_variations_product_id_idx" ON "product_variations"  ("product_id", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "orders" ("id" SERIAL NOT NULL, "company_id" integer NOT NULL, "site" character varying(2) NOT NULL, "state" character varying(20) NOT NULL, "order_type" character varying(8) NOT NULL, "original_order_id" integer, "first_name" character varying(255) NOT NULL, "last_name" character varying(255) NOT NULL, "consignee" character varying(255) NOT NULL, "email" character varying(255) NOT NULL, "phone" character varying(255) NOT NULL, "zip" character varying(255) NOT NULL, "city" character varying(255) NOT NULL, "street" character varying(255) NOT NULL, "house_number" character varying(255) NOT NULL, "floor" character varying(255), "door" character varying(255), "opening_hours" character varying(255), "country" character varying(2), "product_id" integer NOT NULL, "product_variation_id" integer, "login" character varying(255) NOT NULL, "password" character varying(255) NOT NULL, "test" boolean NOT NULL DEFAULT false, "note" character varying(255), "corrected_order_id" character varying(255), "merchant_id" character varying(255) NOT NULL, "oms_user_id" integer, "retail" boolean, "dinein" boolean, "shop_number" character varying(255), "details" text, "serial_number" character varying(255), "final_completion_date" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "orders_state_known" CHECK (state IN ('PLACED', 'TEST', 'SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED', 'CANCELLED')), CONSTRAINT "orders_order_type_known" CHECK (order_type IN ('REGULAR', 'EXCHANGE', 'RETURN')), CONSTRAINT "orders_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_original_order_id_idx" ON "orders"  ("original_order_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_company_updated_idx" ON "orders"  ("company_id", "updated_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_company_state_created_idx" ON "orders"  ("company_id", "state", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_company_type_created_idx" ON "orders"  ("company_id", "order_type", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "orders_company_created_idx" ON "orders"  ("company_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "order_comments" ("id" SERIAL NOT NULL, "order_id" integer NOT NULL, "user_name" character varying(255) NOT NULL, "partner_comment" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "order_comments_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "order_comments_order_user_key" ON "order_comments"  ("order_id", "user_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "trackings" ("id" SERIAL NOT NULL, "order_id" integer NOT NULL, "company_id" integer NOT NULL, "tracking_number" character varying(255) NOT NULL, "status" text, "status_date" TIMESTAMP WITH TIME ZONE, "dispatch_date" TIMESTAMP WITH TIME ZONE, "delivery_date" TIMESTAMP WITH TIME ZONE, "tracking_link" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "trackings_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "trackings_company_delivery_idx" ON "trackings"  ("company_id", "delivery_date") `,
    );
    await queryRunner.query(
      `CREATE INDEX "trackings_company_number_idx" ON "trackings"  ("company_id", "tracking_number") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "trackings_order_number_key" ON "trackings"  ("order_id", "tracking_number") `,
    );
    await queryRunner.query(
      `CREATE TABLE "detailed_statuses" ("id" SERIAL NOT NULL, "order_id" integer NOT NULL, "status" text NOT NULL, "status_date" TIMESTAMP WITH TIME ZONE NOT NULL, "location" text, "description" text, "tracking_number" character varying(255), "tracking_link" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "detailed_statuses_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "detailed_statuses_order_date_idx" ON "detailed_statuses"  ("order_id", "status_date", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "delivery_errors" ("id" SERIAL NOT NULL, "order_id" integer NOT NULL, "status" text NOT NULL, "date" TIMESTAMP WITH TIME ZONE NOT NULL, "resolution" character varying(16) NOT NULL, "comment" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "delivery_errors_pkey" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "delivery_errors_order_idx" ON "delivery_errors"  ("order_id", "id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "product_variations" ADD CONSTRAINT "product_variations_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_original_order_id_fkey" FOREIGN KEY ("original_order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_product_variation_id_fkey" FOREIGN KEY ("product_variation_id") REFERENCES "product_variations"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "order_comments" ADD CONSTRAINT "order_comments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "trackings" ADD CONSTRAINT "trackings_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "detailed_statuses" ADD CONSTRAINT "detailed_statuses_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_errors" ADD CONSTRAINT "delivery_errors_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "delivery_errors" DROP CONSTRAINT "delivery_errors_order_id_fkey"`);
    await queryRunner.query(
      `ALTER TABLE "detailed_statuses" DROP CONSTRAINT "detailed_statuses_order_id_fkey"`,
    );
    await queryRunner.query(`ALTER TABLE "trackings" DROP CONSTRAINT "trackings_order_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "order_comments" DROP CONSTRAINT "order_comments_order_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP CONSTRAINT "orders_product_variation_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP CONSTRAINT "orders_product_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP CONSTRAINT "orders_original_order_id_fkey"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP CONSTRAINT "orders_company_id_fkey"`);
    await queryRunner.query(
      `ALTER TABLE "product_variations" DROP CONSTRAINT "product_variations_product_id_fkey"`,
    );
    await queryRunner.query(`DROP INDEX "public"."delivery_errors_order_idx"`);
    await queryRunner.query(`DROP TABLE "delivery_errors"`);
    await queryRunner.query(`DROP INDEX "public"."detailed_statuses_order_date_idx"`);
    await queryRunner.query(`DROP TABLE "detailed_statuses"`);
    await queryRunner.query(`DROP INDEX "public"."trackings_order_number_key"`);
    await queryRunner.query(`DROP INDEX "public"."trackings_company_number_idx"`);
    await queryRunner.query(`DROP INDEX "public"."trackings_company_delivery_idx"`);
    await queryRunner.query(`DROP TABLE "trackings"`);
    await queryRunner.query(`DROP INDEX "public"."order_comments_order_user_key"`);
    await queryRunner.query(`DROP TABLE "order_comments"`);
    await queryRunner.query(`DROP INDEX "public"."orders_company_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."orders_company_type_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."orders_company_state_created_idx"`);
    await queryRunner.query(`DROP INDEX "public"."orders_company_updated_idx"`);
    await queryRunner.query(`DROP INDEX "public"."orders_original_order_id_idx"`);
    await queryRunner.query(`DROP TABLE "orders"`);
    await queryRunner.query(`DROP INDEX "public"."product_variations_product_id_idx"`);
    await queryRunner.query(`DROP TABLE "product_variations"`);
    await queryRunner.query(`DROP INDEX "public"."products_active_idx"`);
    await queryRunner.query(`DROP TABLE "products"`);
  }
}
