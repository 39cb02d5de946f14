import { MigrationInterface, QueryRunner } from 'typeorm';

/** What runPendingMigrations (src/platform/database/migrations.ts) hands to migrations as queryRunner.data.secrets. */
interface Secrets {
  sealDeviceCredential: (plaintext: string) => string;
  unsealDeviceCredential: (sealed: string) => string;
}

const BATCH = 500;

interface KeyRow {
  company_id: number;
  key: string;
  value: string;
}

/**
 * The response an Idempotency-Key replays can hold an order's device credentials (the sandbox answers the
 * whole order), so it is stored sealed like them: `response` holds the sealed JSON of `{body, etag}`, and
 * the plain `response_body` goes. The rows stored until now are sealed in the same transaction (their ETag
 * was never kept), so no stored response stays readable without the key.
 */
export class IdempotencyResponseSealed1795410000000 implements MigrationInterface {
  name = 'IdempotencyResponseSealed1795410000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "response" text`);
    await rewriteResponses(
      queryRunner,
      `"response_body"::text`,
      `"response" = r.value`,
      (secrets) => (body) => secrets.sealDeviceCredential(`{"body":${body}}`),
    );
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ALTER COLUMN "response" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "response_body"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "response_body" json`);
    await rewriteResponses(
      queryRunner,
      `"response"`,
      `"response_body" = r.value::json`,
      (secrets) => (sealed) =>
        JSON.stringify((JSON.parse(secrets.unsealDeviceCredential(sealed)) as { body: unknown }).body),
    );
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "response"`);
  }
}

/**
 * Reads `from` of every key, rewrites it through `pick(secrets)` and stores it with `assign` (which reads the
 * result as `r.value`), in batches in key order.
 */
async function rewriteResponses(
  queryRunner: QueryRunner,
  from: string,
  assign: string,
  pick: (secrets: Secrets) => (value: string) => string,
): Promise<void> {
  const secrets = (queryRunner.data as { secrets?: Secrets }).secrets;
  let after: [number, string] = [0, ''];
  for (;;) {
    const rows = (await queryRunner.query(
      `SELECT "company_id", "key", ${from} AS value FROM "idempotency_keys"
        WHERE ("company_id", "key") > ($1, $2) ORDER BY "company_id", "key" LIMIT ${BATCH}`,
      after,
    )) as KeyRow[];
    if (rows.length === 0) return;
    if (!secrets) {
      throw new Error(
        'Idempotency keys exist whose stored responses must be sealed: run migrations through the service ' +
          'or `npm run migration:run`, with DEVICE_CREDENTIALS_KEY set.',
      );
    }
    const rewrite = pick(secrets);
    await queryRunner.query(
      `UPDATE "idempotency_keys" AS k SET ${assign}
         FROM unnest($1::int[], $2::text[], $3::text[]) AS r(company_id, key, value)
        WHERE k.company_id = r.company_id AND k.key = r.key`,
      [rows.map((row) => row.company_id), rows.map((row) => row.key), rows.map((row) => rewrite(row.value))],
    );
    const last = rows[rows.length - 1];
    after = [last.company_id, last.key];
  }
}
