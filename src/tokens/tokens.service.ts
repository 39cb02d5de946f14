import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import type { Principal, Role } from '../kernel/access/principal';
import { CompaniesService } from '../companies/companies.service';
import { fieldError } from '../kernel/domain-error';
import { Notifications } from '../platform/database/notifications';
import { ServiceLogger } from '../platform/logging/loggers';
import type { ApiToken } from './api-token.entity';
import { hashSecret, issueSecret, looksLikeToken } from './token-secret';
import { TokenNotFoundError, TokenNotRollableError } from './tokens.errors';
import { TOKEN_REVOKED_CHANNEL, type TokenFilter, TokensRepository } from './tokens.repository';
import { UnitOfWork } from '../platform/database/unit-of-work';

/**
 * How long an instance trusts a token row it looked up. Every revocation (API or CLI, any instance) is
 * announced with pg_notify on commit and every instance listening forgets the row at once. While the listening
 * session is not known to be receiving (Notifications.listening: it has not answered within the last second,
 * say its link is cut), the cache is not trusted at all and every request reads its token, so a revoked token
 * is refused by every instance within a second (CONTRACT §9). Expiry is checked on every request against the
 * cached expires_at, so it is exact.
 */
export const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_MAX_ENTRIES = 10_000;
/** last_used_at is precise to this much, so that using a token is not a database write per request. */
const LAST_USED_PRECISION_MS = 60_000;
/** How long a rolled token's previous secret stays valid when the roll names no time: a day to deploy the new one. */
export const DEFAULT_ROLL_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** The longest a previous secret may stay valid after a roll. */
export const MAX_ROLL_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;

export interface IssueTokenInput {
  role: Role;
  userName: string;
  companyId?: number | null;
  expiresAt?: Date | null;
  /** Partner tokens only: every write is refused. */
  readOnly?: boolean;
}

@Injectable()
export class TokensService implements OnModuleInit {
  private readonly cache = new Map<string, { token: ApiToken; fetchedAt: number }>();
  private readonly lastUsedWrites = new Map<number, number>();

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly tokens: TokensRepository,
    private readonly companies: CompaniesService,
    private readonly audit: AuditService,
    private readonly notifications: Notifications,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(TokensService.name);
  }

  /** Every instance forgets a revoked token's cached lookup at once (TokensRepository.markRevoked notifies). */
  onModuleInit(): Promise<void> {
    return this.notifications.subscribe(TOKEN_REVOKED_CHANNEL, {
      notified: (hash) => this.cache.delete(hash),
      missed: () => this.cache.clear(),
    });
  }

  /** Issues a token; the returned `token` is the only time its secret exists outside the caller's hands. */
  async issue(actor: Actor, input: IssueTokenInput): Promise<{ token: string; record: ApiToken }> {
    const companyId = input.companyId ?? null;
    if (input.role === 'partner' && companyId === null)
      throw fieldError('company_id', 'A partner token needs a company_id.');
    if (input.role !== 'partner' && companyId !== null) {
      const article = input.role === 'admin' ? 'An' : 'A';
      throw fieldError(
        'company_id',
        `${article} ${input.role} token belongs to no company: leave company_id out.`,
      );
    }
    if (input.readOnly && input.role !== 'partner') {
      throw fieldError('read_only', 'Only a partner token can be read-only.');
    }
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
      throw fieldError('expires_at', 'The expiry must be in the future.');
    }
    const secret = issueSecret();
    return this.unitOfWork.transaction(async (manager) => {
      if (companyId !== null && !(await this.companies.exists(companyId, manager))) {
        throw fieldError('company_id', 'No company has this id.');
      }
      const record = await this.tokens.insert(manager, {
        tokenHash: secret.hash,
        prefix: secret.prefix,
        role: input.role,
        userName: input.userName,
        companyId,
        expiresAt: input.expiresAt ?? null,
        readOnly: input.readOnly ?? false,
      });
      const changedFields = ['role', 'user_name'];
      if (companyId !== null) changedFields.push('company_id');
      if (input.expiresAt) changedFields.push('expires_at');
      if (input.readOnly) changedFields.push('read_only');
      await this.audit.record(manager, actor, {
        action: 'token.issued',
        targetType: 'token',
        targetId: record.id,
        companyId,
        changedFields,
      });
      return { token: secret.token, record };
    });
  }

  /** Revokes a token; revoking it again changes nothing and records nothing. */
  async revoke(actor: Actor, id: number): Promise<ApiToken> {
    const token = await this.unitOfWork.transaction(async (manager) => {
      const found = await this.tokens.findForUpdate(manager, id);
      if (!found) throw new TokenNotFoundError();
      if (found.revokedAt) return found;
      await this.tokens.markRevoked(manager, found);
      await this.audit.record(manager, actor, {
        action: 'token.revoked',
        targetType: 'token',
        targetId: id,
        companyId: found.companyId,
        changedFields: ['revoked_at'],
      });
      return (await this.tokens.findForUpdate(manager, id))!;
    });
    this.forget(token);
    return token;
  }

  /** This instance forgets the token's cached lookups at once, without waiting for its own notification. */
  private forget(token: ApiToken): void {
    for (const hash of [token.tokenHash, token.previousTokenHash]) {
      if (hash) this.cache.delete(hash.toString('base64'));
    }
  }

  /**
   * Gives a token a new secret (returned: the only time it exists outside the caller's hands). The secret it
   * replaces stays valid until `previousExpiresAt` (default: 24 hours; a time not after now ends it at once; at
   * most 7 days ahead); the one before that, if a former roll left one, ends now. Everything else about the token
   * (role, company, user name, read-only, expiry) stays.
   */
  async roll(
    actor: Actor,
    id: number,
    previousExpiresAt?: Date | null,
  ): Promise<{ token: string; record: ApiToken }> {
    const now = Date.now();
    const until = previousExpiresAt ?? new Date(now + DEFAULT_ROLL_OVERLAP_MS);
    if (until.getTime() > now + MAX_ROLL_OVERLAP_MS) {
      throw fieldError('previous_expires_at', 'The previous secret can stay valid at most 7 days from now.');
    }
    const secret = issueSecret();
    const rolled = await this.unitOfWork.transaction(async (manager) => {
      const found = await this.tokens.findForUpdate(manager, id);
      if (!found) throw new TokenNotFoundError();
      if (found.revokedAt) throw new TokenNotRollableError('been revoked');
      if (found.expiresAt && found.expiresAt.getTime() <= Date.now())
        throw new TokenNotRollableError('expired');
      await this.tokens.markRolled(manager, found, {
        tokenHash: secret.hash,
        prefix: secret.prefix,
        previousExpiresAt: new Date(Math.max(until.getTime(), Date.now())),
      });
      await this.audit.record(manager, actor, {
        action: 'token.rolled',
        targetType: 'token',
        targetId: id,
        companyId: found.companyId,
        changedFields: ['prefix', 'previous_expires_at', 'rolled_at'],
      });
      return { found, record: (await this.tokens.findForUpdate(manager, id))! };
    });
    this.forget(rolled.found);
    return { token: secret.token, record: rolled.record };
  }

  list(filter: TokenFilter, offset: number, limit: number): Promise<ApiToken[]> {
    return this.tokens.list(filter, offset, limit);
  }

  /**
   * The principal a bearer token stands for, or null when it is unknown, revoked or expired, or is the previous
   * secret of a rolled token whose overlap has ended.
   */
  async authenticate(secret: string): Promise<Principal | null> {
    if (!looksLikeToken(secret)) return null;
    const hash = hashSecret(secret);
    const token = await this.lookUp(hash);
    const now = Date.now();
    if (!token || token.revokedAt || (token.expiresAt && token.expiresAt.getTime() <= now)) return null;
    if (
      !token.tokenHash.equals(hash) &&
      !(token.previousExpiresAt && token.previousExpiresAt.getTime() > now)
    )
      return null;
    this.noteUse(token.id);
    return {
      tokenId: token.id,
      role: token.role,
      userName: token.userName,
      companyId: token.companyId,
      readOnly: token.readOnly,
    };
  }

  private async lookUp(hash: Buffer): Promise<ApiToken | null> {
    const key = hash.toString('base64');
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.fetchedAt < TOKEN_CACHE_MS && this.notifications.listening)
      return cached.token;
    const token = await this.tokens.findByHash(hash);
    this.cache.delete(key);
    if (token) {
      if (this.cache.size >= TOKEN_CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, { token, fetchedAt: Date.now() });
    }
    return token;
  }

  /** Keeps last_used_at without a write per request: at most one a minute per token and instance. */
  private noteUse(tokenId: number): void {
    const now = Date.now();
    if (now - (this.lastUsedWrites.get(tokenId) ?? 0) < LAST_USED_PRECISION_MS) return;
    if (this.lastUsedWrites.size >= TOKEN_CACHE_MAX_ENTRIES) this.lastUsedWrites.clear();
    this.lastUsedWrites.set(tokenId, now);
    this.tokens
      .touch(tokenId)
      .catch((error: unknown) => this.logger.warn({ err: error, tokenId }, 'Could not record token use'));
  }

  /** The roles of the given tokens, by id: one statement (what an audit entry shows beside its token id). */
  async rolesOf(ids: number[]): Promise<Map<number, Role>> {
    const tokens = await this.tokens.rolesOf([...new Set(ids)]);
    return new Map(tokens.map((token) => [token.id, token.role]));
  }
}
