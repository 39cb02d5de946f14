import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type AuthenticatedRequest, principalOf } from '../../kernel/access/access.decorators';

/**
 * The caller's company, from its token: every partner token has one, and the routes that take it admit
 * partner tokens only (@Roles('partner')).
 */
export const CompanyId = createParamDecorator((_data: unknown, context: ExecutionContext): number => {
  const { companyId } = principalOf(context.switchToHttp().getRequest<AuthenticatedRequest>());
  if (companyId === null) throw new Error('@CompanyId() used on a route open to a token without a company');
  return companyId;
});
