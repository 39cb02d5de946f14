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
});
