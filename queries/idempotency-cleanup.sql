DELETE FROM "idempotency_keys" WHERE ("company_id", "key") IN (SELECT "company_id", "key" FROM idempotency_keys WHERE "expires_at" < now() LIMIT $1)
