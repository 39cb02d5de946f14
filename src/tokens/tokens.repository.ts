import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import { ApiToken } from './api-token.entity';

/** PostgreSQL channel on which a revocation names the revoked token's hash (base64). */
export const TOKEN_REVOKED_CHANNEL = 'api_token_revoked';

export type NewToken = Pick<
  ApiToken,
  'tokenHash' | 'prefix' | 'role' | 'userName' | 'companyId' | 'expiresAt'
>;

@Injectable()
export class TokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, values: NewToken): Promise<ApiToken> {
    return manager.save(manager.create(ApiToken, values));
  }

  /** The per-request lookup: one equality match on a unique index. */
  findByHash(hash: Buffer): Promise<ApiToken | null> {
    return this.dataSource.manager.findOneBy(ApiToken, { tokenHash: hash });
  }

  /** Locks the row so a revocation and anything else on the same token are ordered. */
  findForUpdate(manager: EntityManager, id: number): Promise<ApiToken | null> {
    return manager.findOne(ApiToken, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Marks the token revoked and tells every instance (on commit) to forget its cached lookup. */
  async markRevoked(manager: EntityManager, token: ApiToken): Promise<void> {
    await manager.update(ApiToken, { id: token.id }, { revokedAt: () => 'now()' });
    await manager.query('SELECT pg_notify($1, $2)', [
      TOKEN_REVOKED_CHANNEL,
      token.tokenHash.toString('base64'),
    ]);
  }

  list(filter: { companyId?: number }, offset: number, limit: number): Promise<ApiToken[]> {
    return this.dataSource.manager.find(ApiToken, {
      where: filter.companyId === undefined ? {} : { companyId: filter.companyId },
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** At most one write a minute per token, whichever instance serves it. */
  async touch(id: number): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .update(ApiToken)
      .set({ lastUsedAt: () => 'now()' })
      .where('id = :id', { id })
      .andWhere("(last_used_at IS NULL OR last_used_at < now() - interval '1 minute')")
      .execute();
  }

  /** The roles of the tokens of the given ids, in one statement (api_tokens_pkey). */
  rolesOf(ids: number[]): Promise<Pick<ApiToken, 'id' | 'role'>[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(ApiToken, {
      select: { id: true, role: true },
      where: { id: In(ids) },
    });
  }
}
