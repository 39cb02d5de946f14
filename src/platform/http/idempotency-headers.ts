/** The header that makes a partner write safe to repeat (CONTRACT §4), and the one that marks a replay. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
