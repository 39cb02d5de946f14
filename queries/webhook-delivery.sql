WITH due AS ( SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() AND (in_flight_until IS NULL OR in_flight_until <= now()) ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED ) UPDATE webhook_deliveries d SET in_flight_until = now() + make_interval(secs => $2::double precision / 1000), attempt_count = d.attempt_count + 1, next_attempt_at = now() + make_interval(secs => $2::double precision / 1000) FROM due, webhook_endpoints w WHERE d.id = due.id AND w.id = d.endpoint_id AND w.disabled_at IS NULL RETURNING d.id, d.status, d.attempt_count, d.created_at, w.id AS endpoint_id, w.url, w.secret, CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret, d.event_id

SELECT "OutboxEvent"."id" AS "OutboxEvent_id", "OutboxEvent"."company_id" AS "OutboxEvent_company_id", "OutboxEvent"."subject_type" AS "OutboxEvent_subject_type", "OutboxEvent"."order_id" AS "OutboxEvent_order_id", "OutboxEvent"."type" AS "OutboxEvent_type", "OutboxEvent"."data" AS "OutboxEvent_data", "OutboxEvent"."created_at" AS "OutboxEvent_created_at", "OutboxEvent"."transaction_id" AS "OutboxEvent_transaction_id" FROM "events" "OutboxEvent" WHERE (("OutboxEvent"."id" IN ($1)))

START TRANSACTION

INSERT INTO "webhook_attempts"("delivery_id", "attempted_at", "status_code", "duration_ms", "error") VALUES ($1, $2, $3, $4, $5) RETURNING "id"

UPDATE "webhook_deliveries" SET "in_flight_until" = $1 WHERE "id" = $2

UPDATE "webhook_deliveries" SET "status" = $1, "delivered_at" = now() WHERE ("id" = $2 AND "status" IN ($3, $4, $5))

COMMIT
