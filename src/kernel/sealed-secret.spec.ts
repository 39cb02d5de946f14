import { randomBytes } from 'node:crypto';
import { parseSealingKey, seal, SEALED_MAX_LENGTH, unseal, UnsealError } from './sealed-secret';

const key = randomBytes(32);

describe('sealed secrets (AES-256-GCM)', () => {
  it.each(['device-secret', '', 'Ž'.repeat(255), '😀'.repeat(255), 'v1:a:b:c'])(
    'gives back what it sealed: %j',
    (plaintext) => {
      expect(unseal(key, seal(key, plaintext))).toBe(plaintext);
    },
  );

  it('never stores the plaintext, and seals the same value differently each time (random IV)', () => {
    const first = seal(key, 'device-secret');
    expect(first).toMatch(/^v1:[\w-]{16}:[\w-]{22}:[\w-]+$/);
    expect(first).not.toContain('device-secret');
    expect(seal(key, 'device-secret')).not.toBe(first);
  });

  it('fits the widest value of 255 characters (code points) in SEALED_MAX_LENGTH characters', () => {
    for (const widest of ['€'.repeat(255), '😀'.repeat(254) + '€', '\uffff'.repeat(255)]) {
      expect([...widest].length).toBeLessThanOrEqual(255);
      expect(seal(key, widest).length).toBeLessThanOrEqual(SEALED_MAX_LENGTH);
    }
    expect(seal(key, '😀'.repeat(255))).toHaveLength(SEALED_MAX_LENGTH);
  });

  it('detects a changed ciphertext, IV or tag', () => {
    const [version, iv, tag, ciphertext] = seal(key, 'device-secret').split(':');
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[0] ^= 1;
      return bytes.toString('base64url');
    };
    for (const changed of [
      [version, iv, tag, flip(ciphertext)],
      [version, flip(iv), tag, ciphertext],
      [version, iv, flip(tag), ciphertext],
    ]) {
      expect(() => unseal(key, changed.join(':'))).toThrow(UnsealError);
    }
  });

  it('refuses a value sealed under another key', () => {
    expect(() => unseal(randomBytes(32), seal(key, 'device-secret'))).toThrow(
      /changed, or sealed under another key/,
    );
  });

  it.each(['device-secret', 'v2:a:b:c', 'v1:only:three', 'v1:AAAA:AAAA:AAAA'])(
    'refuses what is not a v1 sealed value: %j',
    (stored) => {
      expect(() => unseal(key, stored)).toThrow(UnsealError);
    },
  );

  it('reads a key as 64 hex digits or 44 base64 characters', () => {
    expect(parseSealingKey(key.toString('hex'))).toEqual(key);
    expect(parseSealingKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSealingKey('abcd')).toThrow(/32 bytes/);
  });
});
