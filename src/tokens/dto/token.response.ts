import { ApiDateTime } from '../../kernel/openapi.formats';
import type { Role } from '../../kernel/access/principal';
import type { ApiFormats } from '../../platform/formats/api-formats';
import type { ApiToken } from '../api-token.entity';

/** A token as lists show it: never its secret. */
export class TokenResponse {
  /** @example 7 */
  id!: number;
  /** The first characters of the token, to recognise it. @example "roa_Xk3vQ9aB" */
  prefix!: string;
  /** @example "partner" */
  role!: Role;
  /** @example "alice" */
  user_name!: string;
  /** @example 1 */
  company_id!: number | null;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** Precise to a minute. @example "2026-11-22T08:05" */
  @ApiDateTime()
  last_used_at!: string | null;
  /** Null: never. @example "2027-12-31T23:59" */
  @ApiDateTime()
  expires_at!: string | null;
  /** Null while usable. @example "2026-12-01T10:00" */
  @ApiDateTime()
  revoked_at!: string | null;
  /** A read-only partner token: every write it attempts is refused with 403. @example false */
  read_only!: boolean;
  /** When the token last got a new secret; null: never rolled. @example "2026-11-25T09:00" */
  @ApiDateTime()
  rolled_at!: string | null;
  /**
   * Until when the secret the last roll replaced works (the prefix shown is the new secret's); null: never
   * rolled. @example "2026-11-26T09:00"
   */
  @ApiDateTime()
  previous_expires_at!: string | null;
}

/** The response to issuing or rolling a token: the only time the (new) secret is shown. */
export class IssuedTokenResponse extends TokenResponse {
  /** The bearer token. Store it now: it cannot be shown again. @example "roa_Xk3vQ9aB7dLr0fPz3m6yT1uHw8sE2cJn5qVb4gKi9oA" */
  token!: string;
}

export function toTokenResponse(token: ApiToken, formats: ApiFormats): TokenResponse {
  return {
    id: token.id,
    prefix: token.prefix,
    role: token.role,
    user_name: token.userName,
    company_id: token.companyId,
    created_at: formats.dateTime(token.createdAt),
    last_used_at: formats.dateTime(token.lastUsedAt),
    expires_at: formats.dateTime(token.expiresAt),
    revoked_at: formats.dateTime(token.revokedAt),
    read_only: token.readOnly,
    rolled_at: formats.dateTime(token.rolledAt),
    previous_expires_at: formats.dateTime(token.previousExpiresAt),
  };
}
