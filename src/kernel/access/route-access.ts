import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC, ROLES_KEY } from './access.decorators';
import type { Role } from './principal';

/** Who may call a route, as its decorators say: @Public(), or the roles of @Roles() (none: closed to all). */
export interface Access {
  isPublic: boolean;
  roles: readonly Role[];
}

/**
 * A route's access, read from its metadata once and kept: the three global guards ask on every request, and a
 * route's decorators never change while the process runs.
 */
@Injectable()
export class RouteAccess {
  private readonly byHandler = new WeakMap<object, Access>();

  constructor(private readonly reflector: Reflector) {}

  of(context: ExecutionContext): Access {
    const handler = context.getHandler();
    let access = this.byHandler.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
        roles: this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets) ?? [],
      };
      this.byHandler.set(handler, access);
    }
    return access;
  }
}
