import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError } from '../kernel/domain-error';
import type { AuthenticatedRequest } from '../kernel/access/access.decorators';
import { RouteAccess } from '../kernel/access/route-access';

/** Last global guard: no principal is a 401; a principal whose role the route does not name is a 403. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly access: RouteAccess) {}

  canActivate(context: ExecutionContext): boolean {
    const { isPublic, roles } = this.access.of(context);
    if (isPublic) return true;
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
    if (!principal) throw new DomainError('UNAUTHENTICATED');
    if (!roles.includes(principal.role)) throw new DomainError('FORBIDDEN');
    return true;
  }
}
