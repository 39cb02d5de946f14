import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../common/domain-error';
import { type AuthenticatedRequest, IS_PUBLIC, ROLES_KEY } from './auth.decorators';
import type { Role } from './principal';

/** Last global guard: no principal is a 401; a principal whose role the route does not name is a 403. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
    if (!principal) throw new DomainError('UNAUTHENTICATED');
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets) ?? [];
    if (!roles.includes(principal.role)) throw new DomainError('FORBIDDEN');
    return true;
  }
}
