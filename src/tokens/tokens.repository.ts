import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type FindOptionsWhere, In, IsNull, Not, Raw } from 'typeorm';
import type { Role } from '../kernel/access/principal';
import { containsIgnoringCase } from '../kernel/contains-filter';
import { ApiToken } from './api-token.entity';

export interface TokenFilter {
  companyId?: number;
  userName?: string;
  role?: Role;
  state?: 'active' | 'expired' | 'revoked';
}

/**
 * PostgreSQL channel on which a revocation or a roll names each secret hash (base64) whose cached lookup is no
 * longer true.
 */
export const TOKEN_REVOKED_CHANNEL = 'api_token_revoked';

export type NewToken = Pick<
  ApiToken,
  'tokenHash' | 'prefix' | 'role' | 'userName' | 'companyId' | 'expiresAt' | 'readOnly'
>;

/** A roll's new secret, and until when the one it replaces stays valid. */
export interface RolledSecret {
  tokenHash: Buffer;
  prefix: string;
  previousExpiresAt: Date;
}

@Injectable()
export class TokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, values: NewToken): Promise<ApiToken> {
    return manager.save(manager.create(ApiToken, values));
  }

  /**
   * The per-request lookup: the token whose current or previous secret has this hash, one equality match on
   * each of two unique indexes.
   */
  findByHash(hash: Buffer): Promise<ApiToken | null> {
    return this.dataSource.manager.findOneBy(ApiToken, [{ tokenHash: hash }, { previousTokenHash: hash }]);
  }

  /** Locks the row so a revocation and anything else on the same token are ordered. */
  findForUpdate(manager: EntityManager, id: number): Promise<ApiToken | null> {
    return manager.findOne(ApiToken, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Marks the token revoked and tells every instance (on commit) to forget the cached lookups of its secrets. */
  async markRevoked(manager: EntityManager, token: ApiToken): Promise<void> {
    await manager.update(ApiToken, { id: token.id }, { revokedAt: () => 'now()' });
    await this.announce(manager, [token.tokenHash, token.previousTokenHash]);
  }

  /**
   * Gives the token a new secret; the current one becomes the previous one, and the one before it (if any) is
   * dropped. Every instance forgets the cached lookups of both (on commit).
   */
  async markRolled(manager: EntityManager, token: ApiToken, secret: RolledSecret): Promise<void> {
    await manager.update(
      ApiToken,
      { id: token.id },
      {
        tokenHash: secret.tokenHash,
        prefix: secret.prefix,
        previousTokenHash: token.tokenHash,
        previousExpiresAt: secret.previousExpiresAt,
        rolledAt: () => 'now()',
      },
    );
    await this.announce(manager, [token.tokenHash, token.previousTokenHash]);
  }

  private async announce(manager: EntityManager, hashes: (Buffer | null)[]): Promise<void> {
    for (const hash of hashes) {
      if (hash)
        await manager.query('SELECT pg_notify($1, $2)', [TOKEN_REVOKED_CHANNEL, hash.toString('base64')]);
    }
  }

  /**
   * By id; a company's tokens through the company's index, the other filters on those rows (a company has tens
   * of tokens); across companies, a user name filter of 3 characters or more through
   * api_tokens_user_name_trgm_idx (see docs/performance.md).
   */
  list(filter: TokenFilter, offset: number, limit: number): Promise<ApiToken[]> {
    const where: FindOptionsWhere<ApiToken> = {};
    if (filter.companyId !== undefined) where.companyId = filter.companyId;
    if (filter.userName !== undefined)
      where.userName = containsIgnoringCase(filter.userName, 'user_name_contains');
    if (filter.role !== undefined) where.role = filter.role;
    if (filter.state === 'revoked') where.revokedAt = Not(IsNull());
    if (filter.state === 'active') {
      where.revokedAt = IsNull();
      where.expiresAt = Raw((column) => `(${column} IS NULL OR ${column} > now())`);
    }
    if (filter.state === 'expired') {
      where.revokedAt = IsNull();
      where.expiresAt = Raw((column) => `${column} <= now()`);
    }
    return this.dataSource.manager.find(ApiToken, {
      where,
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
