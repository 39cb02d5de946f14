import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import passport from 'passport';
import type { AuthenticatedRequest } from '../kernel/access/access.decorators';
import type { Principal } from '../kernel/access/principal';
import { RouteAccess } from '../kernel/access/route-access';
import { BearerStrategy } from './bearer.strategy';

/**
 * First global guard: resolves the bearer token to a principal, or to null. It does not refuse anyone, so the
 * rate limit (next guard) counts requests with no or a bad token per client IP before they get their 401.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly access: RouteAccess,
    private readonly bearer: BearerStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.access.of(context).isPublic) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const principal = await this.principalOf(request, http.getResponse<Response>());
    // Express types `user` as passport's User; ours is the principal, or null for none.
    Object.assign(request, { user: principal });
    if (principal) request.authTokenId = principal.tokenId;
    return true;
  }

  /**
   * This application's own strategy, per request (as passport derives one from a strategy registered by name):
   * passport's registry of names is one per process, where the in-process specs build several applications.
   * A database failure propagates (503); a missing or invalid token is simply no principal.
   */
  private principalOf(request: Request, response: Response): Promise<Principal | null> {
    return new Promise((resolve, reject) => {
      const strategy = Object.create(this.bearer) as BearerStrategy;
      const authenticate = passport.authenticate(
        strategy,
        { session: false },
        (error: Error | null, principal: Principal | false) =>
          error ? reject(error) : resolve(principal || null),
      ) as (request: Request, response: Response, next: (error?: unknown) => void) => void;
      authenticate(request, response, reject);
    });
  }
}
