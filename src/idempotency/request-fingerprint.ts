import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/** What a key must stand for on every repeat: the same method, path and JSON body (key order aside). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(stringify([method.toUpperCase(), path, body ?? null]) ?? '')
    .digest('hex');
}

/** CONTRACT §4: 1–255 characters; visible ASCII, as an HTTP header value can carry it unambiguously. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const isValidIdempotencyKey = (key: string): boolean => IDEMPOTENCY_KEY_PATTERN.test(key);
