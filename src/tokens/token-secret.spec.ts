import { hashSecret, issueSecret, looksLikeToken } from './token-secret';

describe('token secrets', () => {
  it('issues 256-bit random tokens with a recognisable prefix', () => {
    const { token, prefix, hash } = issueSecret();
    expect(token).toMatch(/^roa_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    expect(prefix).toBe(token.slice(0, 12));
    expect(hash.equals(hashSecret(token))).toBe(true);
  });

  it('never issues the same token twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => issueSecret().token));
    expect(tokens.size).toBe(1000);
  });

  it('hashes so that the token cannot be read back', () => {
    const { token, hash } = issueSecret();
    expect(hash).toHaveLength(32);
    expect(hash.toString('hex')).not.toContain(Buffer.from(token).toString('hex'));
  });

  it('tells a token-shaped string from anything else', () => {
    expect(looksLikeToken(issueSecret().token)).toBe(true);
    expect(looksLikeToken('roa_short')).toBe(false);
    expect(looksLikeToken(`xyz_${'a'.repeat(43)}`)).toBe(false);
    expect(looksLikeToken('')).toBe(false);
  });
});
