import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently, online } from './support/online-ddl';

/** The columns of the admin lists' "contains" filters (`ILIKE '%…%'`), each with its index. */
const FILTERED = [
  ['companies', 'name', 'companies_name_trgm_idx'],
  ['products', 'name', 'products_name_trgm_idx'],
  ['api_tokens', 'user_name', 'api_tokens_user_name_trgm_idx'],
  ['webhook_endpoints', 'url', 'webhook_endpoints_url_trgm_idx'],
] as const;

/**
 * The admin lists' "contains" filters become index-backed: a pg_trgm GIN index on each filtered column serves
 * `ILIKE '%…%'` for a text of 3 characters or more, where a B-tree cannot. pg_trgm ships with PostgreSQL
 * (contrib) and is a trusted extension since PostgreSQL 13: the database's owner may create it, no superuser
 * needed. Only indexes, built CONCURRENTLY (outside a transaction), so the tables stay writable and the
 * previous version's instances keep serving (CONTRACT §9).
 */
export class ContainsFilterIndexes1795590000100 implements MigrationInterface {
  transaction = false as const;
  name = 'ContainsFilterIndexes1795590000100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await online(queryRunner, async () => {
      await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
      for (const [table, column, index] of FILTERED)
        await createIndexConcurrently(
          queryRunner,
          index,
          `ON "${table}" USING gin ("${column}" gin_trgm_ops)`,
        );
    });
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [, , index] of [...FILTERED].reverse()) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."${index}"`);
    }
    await queryRunner.query(`DROP EXTENSION IF EXISTS pg_trgm`);
  }
}
