import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { AuthenticatedRequest } from '../kernel/access/access.decorators';
import type { Principal } from '../kernel/access/principal';
import { RouteAccess } from '../kernel/access/route-access';

/**
 * First global guard: resolves the bearer token to a principal, or to null. It does not refuse anyone, so the
 * rate limit (next guard) counts requests with no or a bad token per client IP before they get their 401.
 */
@Injectable()
export class AuthenticationGuard extends AuthGuard('bearer') {
  constructor(private readonly access: RouteAccess) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.access.of(context).isPublic) return true;
    await super.canActivate(context);
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (request.user) request.authTokenId = request.user.tokenId;
    return true;
  }

  /** A database failure propagates (503); a missing or invalid token is simply no principal. */
  override handleRequest<T = Principal | null>(error: Error | null, principal: Principal | false): T {
    if (error) throw error;
    return (principal || null) as T;
  }
}
