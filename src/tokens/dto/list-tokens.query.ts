import { IsIn, IsOptional } from 'class-validator';
import { ContainsFilter } from '../../kernel/contains-filter';
import { PageQuery } from '../../kernel/pagination';
import { IdFilter } from '../../kernel/db-integer.validator';
import { ROLES, type Role } from '../../kernel/access/principal';

export const TOKEN_STATES = ['active', 'expired', 'revoked'] as const;
export type TokenState = (typeof TOKEN_STATES)[number];

/** Every filter is optional; they combine with AND. */
export class ListTokensQuery extends PageQuery {
  /** Only the tokens of this company. */
  @IdFilter()
  company_id?: number;

  @ContainsFilter('Only the tokens whose user name contains this text, whatever its case.', 'alice')
  user_name?: string;

  /** Only the tokens of this role. @example "partner" */
  @IsOptional()
  @IsIn(ROLES, { message: `The role filter must be one of ${ROLES.join(', ')}.` })
  role?: Role;

  /**
   * active: neither revoked nor expired; expired: past its expiry, not revoked; revoked: revoked (whatever its
   * expiry). @example "active"
   */
  @IsOptional()
  @IsIn(TOKEN_STATES, { message: `The state filter must be one of ${TOKEN_STATES.join(', ')}.` })
  state?: TokenState;
}
