import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { IdempotencyKey } from './idempotency-key.entity';

@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the key for this transaction, or answers false at once when another transaction (on any instance)
   * holds it. The lock is on (company, hashtext(key)): two keys of one company that hash alike merely take
   * turns, and the stored row, not the lock, decides what a repeat gets.
   */
  async tryLock(manager: EntityManager, companyId: number, key: string): Promise<boolean> {
    const rows: { locked: boolean }[] = await manager.query(
      'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
      [companyId, key],
    );
    return rows[0].locked;
  }

  find(manager: EntityManager, companyId: number, key: string): Promise<IdempotencyKey | null> {
    return manager.findOneBy(IdempotencyKey, { companyId, key });
  }

  async insert(manager: EntityManager, row: Omit<IdempotencyKey, 'createdAt' | 'company'>): Promise<void> {
    await manager.insert(IdempotencyKey, row);
  }

  async remove(manager: EntityManager, companyId: number, key: string): Promise<void> {
    await manager.delete(IdempotencyKey, { companyId, key });
  }

  /** Deletes up to `limit` expired keys (idempotency_keys_expires_at_idx); returns how many. */
  async deleteExpired(limit: number): Promise<number> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(IdempotencyKey)
      .where(
        '(company_id, key) IN (SELECT company_id, key FROM idempotency_keys WHERE expires_at < now() LIMIT :limit)',
        { limit },
      )
      .execute();
    return result.affected ?? 0;
  }
}
