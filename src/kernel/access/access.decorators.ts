import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Actor } from './actor';
import type { Principal, Role } from './principal';

export const IS_PUBLIC = 'roa:isPublic';
export const ROLES_KEY = 'roa:roles';

/** Reachable without a token and outside the rate limit (health). Everything else needs a token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The token roles that may call a route. A route without @Roles is closed to every token (secure default). */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

export type AuthenticatedRequest = Request & { user?: Principal | null; authTokenId?: number };

export function principalOf(request: AuthenticatedRequest): Principal {
  if (!request.user) throw new Error('principalOf() used on a route that does not require authentication');
  return request.user;
}

/**
 * The company of a partner caller: every partner route is scoped by it. A partner token always has one (the
 * tokens module refuses to issue one without); a route that is not for partners must not ask for it.
 */
export function callerCompanyOf(request: AuthenticatedRequest): number {
  const { companyId, role } = principalOf(request);
  if (companyId === null) throw new Error(`callerCompanyOf() used for a ${role} token, which has no company`);
  return companyId;
}

/** The caller's company, for partner routes (@Roles('partner')). */
export const CallerCompany = createParamDecorator((_data: unknown, context: ExecutionContext): number =>
  callerCompanyOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);

/** The caller, as resolved from its bearer token. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  principalOf(context.switchToHttp().getRequest<AuthenticatedRequest>()),
);

/** The caller as the audit trail records it: token, user name and this request's id. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  const principal = principalOf(request);
  return {
    tokenId: principal.tokenId,
    userName: principal.userName,
    requestId: typeof request.id === 'string' ? request.id : null,
  };
});
