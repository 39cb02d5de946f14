import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each company's last write ended in the primary's WAL, recorded after the write commits, so that a read
 * sent to a read replica can tell whether the replica has replayed it (CONTRACT §9, docs/operations/deployment.md).
 * UNLOGGED: writing it costs no WAL and no fsync, and it is not replicated; a crash of the primary empties it,
 * which is safe: a company without a row is compared with the primary's current WAL position instead. A new
 * table, so the previous version's instances serve on while it is created.
 */
export class CompanyWritePositions1795520000000 implements MigrationInterface {
  name = 'CompanyWritePositions1795520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "company_write_positions" ("company_id" integer PRIMARY KEY, "lsn" pg_lsn NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "company_write_positions"`);
  }
}
