import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export const generateWebhookSecret = (): string => PREFIX + randomBytes(32).toString('base64');

const QUAD = '(?:[A-Za-z0-9+/]{4})';

/**
 * CONTRACT §5: `whsec_` followed by the base64 of 24 to 64 bytes, padded: 8 to 21 groups of four characters
 * (24 to 63 bytes), 9 to 21 groups ending in `=` (26 to 62 bytes), or 9 to 22 groups ending in `==` (25 to
 * 64 bytes). One pattern, for the service and the OpenAPI document alike.
 */
export const WEBHOOK_SECRET_PATTERN = new RegExp(
  `^${PREFIX}(?:${QUAD}{8,21}|${QUAD}{8,20}[A-Za-z0-9+/]{3}=|${QUAD}{8,21}[A-Za-z0-9+/]{2}==)$`,
);

export const isValidWebhookSecret = (secret: string): boolean => WEBHOOK_SECRET_PATTERN.test(secret);
