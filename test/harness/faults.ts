import type { Pool } from 'pg';

/**
 * What the fault specs share (test/faults.e2e-spec.ts in process, test/system/faults.system-spec.ts for the
 * signals): every request carries a generous bound, so a hanging request fails the spec instead of stalling it.
 */
export const REQUEST_BOUND_MS = 10_000;
export const CONCURRENCY = 30;
/** Enough for many concurrent requests: the rate limit is not what these specs exercise. */
export const ENV = { RATE_LIMIT_PER_MINUTE: '100000' };

/** Orders without their `order.placed` audit row, and `order.placed` rows without their order: none, ever. */
export async function halfWrittenOrders(db: Pool): Promise<string[]> {
  const { rows } = await db.query<{ problem: string }>(`
    SELECT 'order ' || o.id || ' has no audit row' AS problem FROM orders o
     WHERE NOT EXISTS (SELECT 1 FROM audit_events a
                        WHERE a.action = 'order.placed' AND a.target_type = 'order' AND a.target_id = o.id::text)
    UNION ALL
    SELECT 'audit row ' || a.id || ' names no order' FROM audit_events a
     WHERE a.action = 'order.placed'
       AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id::text = a.target_id)`);
  return rows.map((row) => row.problem);
}
