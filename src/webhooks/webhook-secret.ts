import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export const generateWebhookSecret = (): string => PREFIX + randomBytes(32).toString('base64');

/** CONTRACT §5: `whsec_` followed by the base64 of 24 to 64 bytes. */
export function isValidWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}
