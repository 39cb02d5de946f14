import { isValidIdempotencyKey, requestFingerprint } from './request-fingerprint';

describe('requestFingerprint', () => {
  it('is the same for the same request whatever the order of the keys', () => {
    expect(requestFingerprint('post', '/api/v2/order', { a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      requestFingerprint('POST', '/api/v2/order', { b: { d: 'x', c: [1, 2] }, a: 1 }),
    );
  });

  it('differs when the body, the path or the method differs', () => {
    const base = requestFingerprint('POST', '/api/v2/order/1/update', { city: 'Nitra' });
    expect(requestFingerprint('POST', '/api/v2/order/1/update', { city: 'Trnava' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v2/order/2/update', { city: 'Nitra' })).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/v2/order/1/update', { city: 'Nitra' })).not.toBe(base);
    expect(requestFingerprint('POST', '/api/v2/order/1/update', { city: 'Nitra', extra: null })).not.toBe(
      base,
    );
  });

  it('tells an absent body from an empty one only as null versus {}', () => {
    expect(requestFingerprint('POST', '/p', undefined)).toBe(requestFingerprint('POST', '/p', null));
    expect(requestFingerprint('POST', '/p', undefined)).not.toBe(requestFingerprint('POST', '/p', {}));
  });
});

describe('isValidIdempotencyKey', () => {
  it('accepts 1 to 255 visible ASCII characters', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey('4f1c2a0e-8c1b-4d7e-9a55-0b7f1d2e3c4a')).toBe(true);
    expect(isValidIdempotencyKey('k'.repeat(255))).toBe(true);
  });

  it('refuses an empty key, a longer one, spaces and non-ASCII characters', () => {
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('k'.repeat(256))).toBe(false);
    expect(isValidIdempotencyKey('two words')).toBe(false);
    expect(isValidIdempotencyKey('clé')).toBe(false);
  });
});
