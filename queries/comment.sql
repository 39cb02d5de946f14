START TRANSACTION

SELECT id AS "id", company_id AS "companyId", site AS "site", state AS "state", order_type AS "orderType", original_order_id AS "originalOrderId", first_name AS "firstName", last_name AS "lastName", consignee AS "consignee", email AS "email", phone AS "phone", zip AS "zip", city AS "city", street AS "street", house_number AS "houseNumber", floor AS "floor", door AS "door", opening_hours AS "openingHours", country AS "country", product_id AS "productId", product_variation_id AS "productVariationId", login AS "login", password AS "password", test AS "test", note AS "note", corrected_order_id AS "correctedOrderId", merchant_id AS "merchantId", oms_user_id AS "omsUserId", retail AS "retail", dinein AS "dinein", shop_number AS "shopNumber", details AS "details", serial_number AS "serialNumber", final_completion_date AS "finalCompletionDate", created_at AS "createdAt", updated_at AS "updatedAt", version AS "version" FROM orders WHERE id = $1 AND company_id = $2 FOR UPDATE

INSERT INTO order_comments (order_id, user_name, partner_comment) VALUES ($1, $2, $3) ON CONFLICT (order_id, user_name) DO UPDATE SET partner_comment = EXCLUDED.partner_comment, updated_at = now() RETURNING (xmax = 0) AS inserted

UPDATE "orders" SET "updated_at" = now(), "version" = "version" + 1 WHERE "id" = $1

INSERT INTO "audit_events"("occurred_at", "token_id", "user_name", "company_id", "action", "target_type", "target_id", "request_id", "changed_fields") VALUES (DEFAULT, $1, $2, $3, $4, $5, $6, $7, $8) RETURNING "id", "occurred_at"

WITH inserted AS ( INSERT INTO events (company_id, subject_type, order_id, type, data, transaction_id) SELECT $1::integer, draft.subject_type, $2::integer, draft.type, draft.data, pg_current_xact_id()::text::bigint FROM unnest($3::varchar[], $4::varchar[], $5::json[]) WITH ORDINALITY AS draft(subject_type, type, data, position) ORDER BY draft.position RETURNING id, type ) INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at, status) SELECT inserted.id, inserted.type, endpoint.id, now(), CASE WHEN endpoint.disabled_at IS NULL THEN 'pending' ELSE 'paused' END FROM inserted CROSS JOIN webhook_endpoints endpoint WHERE endpoint.company_id = $1 AND endpoint.active AND (endpoint.event_types IS NULL OR inserted.type = ANY (endpoint.event_types))

COMMIT

INSERT INTO company_write_positions AS p (company_id, lsn) SELECT company_id, pg_current_wal_insert_lsn() FROM (SELECT unnest($1::integer[]) AS company_id) AS companies ORDER BY company_id ON CONFLICT (company_id) DO UPDATE SET lsn = excluded.lsn WHERE p.lsn < excluded.lsn
