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
import { WINDOW_MS } from './rate-limit.module';

const THROTTLER_NAME = 'default';

/**
 * One budget per token across every route (per client IP for requests without a valid token), instead of the
 * throttler's default of per IP and per route handler. Sets X-RateLimit-Limit/-Remaining/-Reset on every
 * limited response and Retry-After on the 429, whose body the exception filter writes.
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
      record = await this.storageService.increment(key, WINDOW_MS, budget, WINDOW_MS, THROTTLER_NAME);
    } catch (error) {
      this.logger.warn(`Rate-limit store unavailable, request allowed: ${(error as Error).message}`);
      return true;
    }
    const reset = record.isBlocked ? record.timeToBlockExpire : record.timeToExpire;
    response.setHeader('X-RateLimit-Limit', budget);
    response.setHeader(
      'X-RateLimit-Remaining',
      record.isBlocked ? 0 : Math.max(0, budget - record.totalHits),
    );
    response.setHeader('X-RateLimit-Reset', reset);
    if (record.isBlocked) {
      response.setHeader('Retry-After', reset);
      throw new DomainError('RATE_LIMITED');
    }
    return true;
  }
}
