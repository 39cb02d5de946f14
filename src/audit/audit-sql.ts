import type { AuditRow } from './audit-row';

/** SQL expressions, over the rows of a statement's `source`, for the audit row each of them gets. */
export interface AppendedAudit {
  tokenId: string;
  userName: string;
  requestId: string;
  companyId: string;
  action: string;
  targetType: string;
  targetId: string;
  changedFields: string;
}

/**
 * SQL: one audit row per row of `source` (a CTE of the statement that writes the change, so the row commits or
 * rolls back with it). The audit module's half of a change made in one statement, as the outbox's
 * appendEventsSql is the outbox's: audit_events is written only by SQL this module renders.
 */
export const appendAuditSql = (source: string, audit: AppendedAudit): string =>
  `INSERT INTO audit_events
           (token_id, user_name, request_id, company_id, action, target_type, target_id, changed_fields)
         SELECT ${audit.tokenId}, ${audit.userName}, ${audit.requestId}, ${audit.companyId},
           ${audit.action}, ${audit.targetType}, ${audit.targetId}, ${audit.changedFields}
         FROM ${source}`;

/**
 * The values of an audit row but its target, in the order of AppendedAudit's fields less targetId: what a
 * statement passes for the placeholders it gives appendAuditSql in that order.
 */
export const auditValues = (audit: Omit<AuditRow, 'targetId'>): unknown[] => [
  audit.tokenId,
  audit.userName,
  audit.requestId,
  audit.companyId,
  audit.action,
  audit.targetType,
  audit.changedFields,
];
