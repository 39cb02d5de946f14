import fc from 'fast-check';
import { generateWebhookSecret, isValidWebhookSecret } from './webhook-secret';

describe('webhook secrets', () => {
  it('generates whsec_ secrets of 32 random bytes, each different', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(isValidWebhookSecret(secret)).toBe(true);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('accepts a given secret of 24 to 64 bytes and refuses anything else', () => {
    const of = (bytes: number) => 'whsec_' + Buffer.alloc(bytes, 7).toString('base64');
    expect(isValidWebhookSecret(of(24))).toBe(true);
    expect(isValidWebhookSecret(of(64))).toBe(true);
    expect(isValidWebhookSecret(of(23))).toBe(false);
    expect(isValidWebhookSecret(of(65))).toBe(false);
    expect(isValidWebhookSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(isValidWebhookSecret('whsec_not base64!')).toBe(false);
  });

  it('accepts every length from 24 to 64 bytes, in each padding, and no length outside it', () => {
    for (let bytes = 0; bytes <= 80; bytes++)
      expect([bytes, isValidWebhookSecret('whsec_' + Buffer.alloc(bytes, 255).toString('base64'))]).toEqual([
        bytes,
        bytes >= 24 && bytes <= 64,
      ]);
  });

  it('accepts exactly the padded base64 that decodes to 24 to 64 bytes', () => {
    const padded = (encoded: string) =>
      /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) &&
      encoded.length % 4 === 0 &&
      Buffer.from(encoded, 'base64').length >= 24 &&
      Buffer.from(encoded, 'base64').length <= 64;
    const alphabet = 'ABCxyz019+/= -'.split('');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.base64String({ minLength: 24, maxLength: 100 }),
          fc.array(fc.constantFrom(...alphabet), { maxLength: 100 }).map((chars) => chars.join('')),
        ),
        (encoded) => isValidWebhookSecret('whsec_' + encoded) === padded(encoded),
      ),
      { numRuns: 5_000 },
    );
  });
});
