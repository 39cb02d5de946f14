DELETE FROM webhook_deliveries WHERE id IN ( SELECT id FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending' AND (in_flight_until IS NULL OR in_flight_until <= now()) LIMIT $2)
