/**
 * SQL: one delivery per active webhook endpoint of the company (placeholder `company`) that receives the type of
 * an event the statement's CTE `events` returned (`RETURNING id, type`): the outbox half of a change's statement.
 * It keeps the event's type (the delivery log's filter), and is pending, or paused while its endpoint is
 * disabled (sent once it is enabled).
 */
export const deliveriesSql = (events: string, company: string): string =>
  `INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at, status)
   SELECT ${events}.id, ${events}.type, endpoint.id, now(),
     CASE WHEN endpoint.disabled_at IS NULL THEN 'pending' ELSE 'paused' END
   FROM ${events} CROSS JOIN webhook_endpoints endpoint
   WHERE endpoint.company_id = ${company} AND endpoint.active
     AND (endpoint.event_types IS NULL OR ${events}.type = ANY (endpoint.event_types))`;

/** SQL expressions, over the rows of the statement's `source`, for the events that statement appends. */
export interface AppendedEvents {
  companyId: string;
  /** A declared subject type, written as it is (`order`). */
  subjectType: string;
  subjectId: string;
  type: string;
  data: string;
}

/**
 * SQL: one event per row of `source` (a CTE of the statement that writes the change, so the event commits or
 * rolls back with it), returning the new ids and types for deliveriesSql.
 */
export function appendEventsSql(source: string, events: AppendedEvents): string {
  if (!/^[a-z_]+$/.test(events.subjectType)) throw new Error(`Not a subject type: ${events.subjectType}`);
  return `INSERT INTO events (company_id, subject_type, order_id, type, data, transaction_id)
         SELECT ${events.companyId}, '${events.subjectType}', ${events.subjectId}, ${events.type}, ${events.data},
           pg_current_xact_id()::text::bigint
         FROM ${source}
         RETURNING id, type`;
}

/** SQL expressions for the events of one change given as arrays (one element per event, in order). */
export interface DraftedEvents {
  companyId: string;
  subjectId: string;
  subjectTypes: string;
  types: string;
  data: string;
}

/**
 * SQL: the events of one change, from parallel arrays of subject types, types and JSON data, in their order,
 * once per row of `source` when given (a CTE of the statement that writes the change, so nothing is appended when
 * it wrote nothing); returning the new ids and types for deliveriesSql. One text whatever the number of events.
 */
export const appendDraftedEventsSql = (events: DraftedEvents, source?: string): string =>
  `INSERT INTO events (company_id, subject_type, order_id, type, data, transaction_id)
       SELECT ${events.companyId}, draft.subject_type, ${events.subjectId}, draft.type, draft.data,
         pg_current_xact_id()::text::bigint
       FROM ${source ? `${source} CROSS JOIN ` : ''}unnest(${events.subjectTypes}, ${events.types}, ${events.data})
         WITH ORDINALITY AS draft(subject_type, type, data, position)
       ORDER BY draft.position
       RETURNING id, type`;
