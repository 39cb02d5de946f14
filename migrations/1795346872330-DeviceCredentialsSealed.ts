import { MigrationInterface, QueryRunner } from 'typeorm';

/** What runPendingMigrations (src/platform/database/migrations.ts) hands to migrations as queryRunner.data.secrets. */
interface Secrets {
  sealDeviceCredential: (plaintext: string) => string;
  unsealDeviceCredential: (sealed: string) => string;
}

const BATCH = 500;

/**
 * Device credentials are stored sealed (AES-256-GCM, `v1:<iv>:<tag>:<ciphertext>`): the columns widen to the
 * sealed size of a 255-character value (in place: widening a varchar rewrites nothing), and the rows stored
 * in plain text until now are sealed in the same transaction, so after this migration every stored value is
 * sealed and the service never has to guess. Sealing needs the key: the migration refuses to run without it
 * when there are rows to seal.
 */
export class DeviceCredentialsSealed1795346872330 implements MigrationInterface {
  name = 'DeviceCredentialsSealed1795346872330';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "login" TYPE character varying(1063)`);
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "password" TYPE character varying(1063)`);
    await rewriteCredentials(queryRunner, (secrets) => secrets.sealDeviceCredential);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await rewriteCredentials(queryRunner, (secrets) => secrets.unsealDeviceCredential);
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "password" TYPE character varying(255)`);
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "login" TYPE character varying(255)`);
  }
}

/** Rewrites every order's login and password through `pick(secrets)`, in batches of ids. */
async function rewriteCredentials(
  queryRunner: QueryRunner,
  pick: (secrets: Secrets) => (value: string) => string,
): Promise<void> {
  const secrets = (queryRunner.data as { secrets?: Secrets }).secrets;
  let after = 0;
  for (;;) {
    const rows = (await queryRunner.query(
      `SELECT "id", "login", "password" FROM "orders" WHERE "id" > $1 ORDER BY "id" LIMIT ${BATCH}`,
      [after],
    )) as { id: number; login: string; password: string }[];
    if (rows.length === 0) return;
    if (!secrets) {
      throw new Error(
        'Orders exist whose device credentials must be sealed: run migrations through the service or ' +
          '`npm run migration:run`, with DEVICE_CREDENTIALS_KEY set.',
      );
    }
    const rewrite = pick(secrets);
    await queryRunner.query(
      `UPDATE "orders" AS o SET "login" = c.login, "password" = c.password
         FROM unnest($1::int[], $2::text[], $3::text[]) AS c(id, login, password) WHERE o.id = c.id`,
      [
        rows.map((row) => row.id),
        rows.map((row) => rewrite(row.login)),
        rows.map((row) => rewrite(row.password)),
      ],
    );
    after = rows[rows.length - 1].id;
  }
}
