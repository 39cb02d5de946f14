import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (the device `login` and `password` of orders): AES-256-GCM under a 32-byte key, stored as
 * `v1:<iv>:<tag>:<ciphertext>` (base64url). The version names the scheme, so a later key or algorithm can
 * sit beside this one; the tag authenticates, so a changed value or another key fails loudly instead of
 * returning garbage.
 */
const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/**
 * The longest sealed form of a 255-character value (characters are code points, CONTRACT §2): at most 4
 * UTF-8 bytes each makes 1,020 bytes, 1,360 characters of base64url, plus the IV (16), the tag (22) and
 * `v1` with the separators (5). The columns that hold sealed values are this wide.
 */
export const SEALED_MAX_LENGTH = 1403;

/** Thrown when a stored value is not ours: not `v1:` shaped, changed since it was sealed, or another key's. */
export class UnsealError extends Error {
  override name = 'UnsealError';
}

/** A key from its configured form: 64 hex digits or 44 base64 characters (CONTRACT §8). */
export function parseSealingKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`A sealing key must be ${KEY_BYTES} bytes.`);
  return key;
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join(':');
}

export function unseal(key: Buffer, sealed: string): string {
  const parts = sealed.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new UnsealError('Not a sealed value.');
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new UnsealError('Not a sealed value.');
  const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new UnsealError(
      'A sealed value failed authentication: it was changed, or sealed under another key.',
    );
  }
}
