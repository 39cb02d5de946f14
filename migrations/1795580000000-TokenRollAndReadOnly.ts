import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read-only partner tokens and token rolls (a new secret, the previous one kept until previous_expires_at).
 * Additive, so instances of the previous version keep serving while it runs (CONTRACT §9): they never read the
 * new columns and their inserts get the defaults. Until every instance runs the new version, an old one knows
 * neither a rolled token's previous secret (401) nor the read-only flag: issue read-only tokens and roll tokens
 * once the deploy is complete.
 */
export class TokenRollAndReadOnly1795580000000 implements MigrationInterface {
  name = 'TokenRollAndReadOnly1795580000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_tokens" ADD "previous_token_hash" bytea`);
    await queryRunner.query(`ALTER TABLE "api_tokens" ADD "previous_expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "api_tokens" ADD "rolled_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "api_tokens" ADD "read_only" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "api_tokens_previous_token_hash_key" ON "api_tokens"  ("previous_token_hash") WHERE previous_token_hash IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_previous_expiry" CHECK ((previous_token_hash IS NULL) = (previous_expires_at IS NULL))`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_read_only_partner" CHECK (NOT read_only OR role = 'partner')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "api_tokens_read_only_partner"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP CONSTRAINT "api_tokens_previous_expiry"`);
    await queryRunner.query(`DROP INDEX "public"."api_tokens_previous_token_hash_key"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP COLUMN "read_only"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP COLUMN "rolled_at"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP COLUMN "previous_expires_at"`);
    await queryRunner.query(`ALTER TABLE "api_tokens" DROP COLUMN "previous_token_hash"`);
  }
}
