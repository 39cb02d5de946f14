import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../kernel/access/access.decorators';
import { RouteAccess } from '../kernel/access/route-access';
import { DomainError } from '../kernel/domain-error';
import type { Environment } from '../platform/config/environment';

const THROTTLER_NAME = 'default';

/**
 * The limit the stores are given: never reached, so neither store starts a block. The Redis store's script
 * (@nest-lab/throttler-storage-redis) blocks a key for `blockDuration` from its first request over the limit,
 * a span that cannot be the rest of the window (the guard learns that only from the script's answer) and,
 * when it outlasts the window, refuses the next one. Its counter alone is the fixed window CONTRACT §2 asks
 * for (INCR, the expiry set by the window's first request), so the guard compares the count with the budget.
 */
const NEVER_BLOCK = Number.MAX_SAFE_INTEGER;

/**
 * One budget per token across every route (per client IP for requests without a valid token), instead of the
 * throttler's default of per IP and per route handler, in fixed windows: a request over the budget is refused
 * until its window ends, and counts in that window only, so a client that waits Retry-After (the window's rest)
 * gets a whole budget. Sets X-RateLimit-Limit/-Remaining/-Reset on every limited response and Retry-After on
 * the 429, whose body the exception filter writes.
 * If the counter store (Redis) cannot be reached, requests are let through rather than refused.
 *
 * There is one limit, the same for every route, so a request costs one counter increment: none of the
 * throttler's per-route metadata look-ups (skip, limit, ttl, block duration, tracker, key) apply.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly limit: number;
  /** Admin tokens have their own, higher budget (ADMIN_RATE_LIMIT_PER_MINUTE). */
  private readonly adminLimit: number;
  private readonly windowMs: number;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    config: ConfigService<Environment, true>,
    private readonly access: RouteAccess,
  ) {
    super(options, storage, reflector);
    this.limit = config.get('RATE_LIMIT_PER_MINUTE', { infer: true });
    this.adminLimit = config.get('ADMIN_RATE_LIMIT_PER_MINUTE', { infer: true });
    this.windowMs = config.get('RATE_LIMIT_WINDOW_MS', { infer: true });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.access.of(context).isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const principal = request.user;
    const budget = principal?.role === 'admin' ? this.adminLimit : this.limit;
    const key = principal ? `roa:rate:token:${principal.tokenId}` : `roa:rate:ip:${request.ip ?? 'unknown'}`;
    let record;
    try {
      record = await this.storageService.increment(
        key,
        this.windowMs,
        NEVER_BLOCK,
        this.windowMs,
        THROTTLER_NAME,
      );
    } catch (error) {
      this.logger.warn(`Rate-limit store unavailable, request allowed: ${(error as Error).message}`);
      return true;
    }
    // Seconds until the window ends, rounded up: waiting that long always reaches the next window.
    const reset = record.timeToExpire;
    response.setHeader('X-RateLimit-Limit', budget);
    response.setHeader('X-RateLimit-Remaining', Math.max(0, budget - record.totalHits));
    response.setHeader('X-RateLimit-Reset', reset);
    if (record.totalHits > budget) {
      response.setHeader('Retry-After', reset);
      throw new DomainError('RATE_LIMITED');
    }
    return true;
  }
}
