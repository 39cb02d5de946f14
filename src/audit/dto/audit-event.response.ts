import { ApiDateTime } from '../../kernel/openapi.formats';
import type { ApiFormats } from '../../platform/formats/api-formats';
import type { NamedAuditEvent } from '../audit.repository';

export class AuditEventResponse {
  /** @example 42 */
  id!: number;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  occurred_at!: string;
  /** The token that made the change; null when it was made with the CLI. @example 7 */
  token_id!: number | null;
  /** The name of the token's user (or of the CLI's operator) who made the change. @example "alice" */
  user_name!: string;
  /** @example 1 */
  company_id!: number | null;
  /** The company's name (as it is now); null when the change concerns no company. @example "Demo Restaurants s.r.o." */
  company_name!: string | null;
  /** @example "token.issued" */
  action!: string;
  /** @example "token" */
  target_type!: string;
  /** The id of the changed object (an order, token, company, product or webhook endpoint). @example 12 */
  target_id!: number;
  /** The X-Request-Id of the request that made the change. @example "4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e" */
  request_id!: string | null;
  /** Names of the fields the change set (never their values). @example ["company_id", "role", "user_name"] */
  changed_fields!: string[];
}

export function toAuditEventResponse(
  { event, companyName }: NamedAuditEvent,
  formats: ApiFormats,
): AuditEventResponse {
  return {
    id: event.id,
    occurred_at: formats.dateTime(event.occurredAt),
    token_id: event.tokenId,
    user_name: event.userName,
    company_id: event.companyId,
    company_name: companyName,
    action: event.action,
    target_type: event.targetType,
    target_id: Number(event.targetId),
    request_id: event.requestId,
    changed_fields: event.changedFields,
  };
}
