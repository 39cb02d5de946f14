import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError } from '../kernel/domain-error';
import type { AuthenticatedRequest } from '../kernel/access/access.decorators';
import { RouteAccess } from '../kernel/access/route-access';

/** The methods that change nothing (RFC 9110 §9.2.1): the only ones a read-only token may call. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Last global guard: no principal is a 401; a principal whose role the route does not name is a 403, and so is a
 * read-only principal on any route that is not a safe method. The one place read-only is enforced: it runs
 * before every interceptor, so a read-only token reaches neither a handler nor an idempotent replay, and a route
 * added later is covered without naming it.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly access: RouteAccess) {}

  canActivate(context: ExecutionContext): boolean {
    const { isPublic, roles } = this.access.of(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = request.user;
    if (!principal) throw new DomainError('UNAUTHENTICATED');
    if (!roles.includes(principal.role)) throw new DomainError('FORBIDDEN');
    if (principal.readOnly && !SAFE_METHODS.has(request.method)) throw new DomainError('FORBIDDEN');
    return true;
  }
}
