import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Device credentials of 255 four-byte characters (CONTRACT §2: limits count code points) seal to 1,403
 * characters, not the 1,063 a three-byte character needs: the columns widen (in place: widening a varchar
 * rewrites nothing).
 */
export class SealedCredentialsFourByteCharacters1795400000000 implements MigrationInterface {
  name = 'SealedCredentialsFourByteCharacters1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "login" TYPE character varying(1403)`);
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "password" TYPE character varying(1403)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "password" TYPE character varying(1063)`);
    await queryRunner.query(`ALTER TABLE "orders" ALTER COLUMN "login" TYPE character varying(1063)`);
  }
}
