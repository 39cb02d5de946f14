import { createHash, randomBytes } from 'node:crypto';

/** Every token starts with this, so a leaked one is easy to recognise in code or logs (and by scanners). */
const TOKEN_MARK = 'roa_';
const SECRET_BYTES = 32;
/** `roa_` + 8 characters of the secret: shown in lists, enough to tell tokens apart, useless to an attacker. */
const PREFIX_LENGTH = TOKEN_MARK.length + 8;
const TOKEN_SHAPE = /^roa_[A-Za-z0-9_-]{43}$/;

export interface IssuedSecret {
  token: string;
  prefix: string;
  hash: Buffer;
}

/** A new token: 256 random bits, base64url. Only its hash and prefix are kept. */
export function issueSecret(): IssuedSecret {
  const token = TOKEN_MARK + randomBytes(SECRET_BYTES).toString('base64url');
  return { token, prefix: token.slice(0, PREFIX_LENGTH), hash: hashSecret(token) };
}

/**
 * SHA-256 suffices for a 256-bit random secret (no dictionary to attack), and keeps the per-request lookup
 * to one indexed equality match.
 */
export function hashSecret(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Cheap shape check before any lookup: a string that cannot be one of our tokens never reaches the database. */
export function looksLikeToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}
