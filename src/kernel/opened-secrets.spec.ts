import { randomBytes } from 'node:crypto';
import { OpenedSecrets } from './opened-secrets';
import * as sealedSecret from './sealed-secret';

jest.mock('./sealed-secret', () => {
  const actual = jest.requireActual<typeof sealedSecret>('./sealed-secret');
  return { ...actual, unseal: jest.fn(actual.unseal) };
});

const unseal = sealedSecret.unseal as jest.MockedFunction<typeof sealedSecret.unseal>;

describe('OpenedSecrets', () => {
  const key = randomBytes(32);
  const opened = new OpenedSecrets(key);
  const sealed = (plaintext: string, under = key) => sealedSecret.seal(under, plaintext);

  beforeEach(() => unseal.mockClear());

  it('opens a stored value once: the same sealed text again is answered without deciphering', () => {
    const value = sealed('device-secret');
    expect(opened.open(value)).toBe('device-secret');
    expect(opened.open(value)).toBe('device-secret');
    expect(unseal).toHaveBeenCalledTimes(1);
    expect(opened.open(sealed('device-secret'))).toBe('device-secret');
    expect(unseal).toHaveBeenCalledTimes(2);
  });

  it('keeps nothing of a value that fails: a changed or foreign value fails every time', () => {
    const value = sealed('device-secret');
    expect(opened.open(value)).toBe('device-secret');
    const changed = `${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => opened.open(changed)).toThrow(sealedSecret.UnsealError);
    expect(() => opened.open(changed)).toThrow(sealedSecret.UnsealError);
    const foreign = sealed('device-secret', randomBytes(32));
    expect(() => opened.open(foreign)).toThrow(sealedSecret.UnsealError);
    expect(() => opened.open(foreign)).toThrow(sealedSecret.UnsealError);
  });

  it('opens a value longer than any device credential (a stored response) each time', () => {
    const long = sealed('x'.repeat(2_000));
    expect(long.length).toBeGreaterThan(sealedSecret.SEALED_MAX_LENGTH);
    expect(opened.open(long)).toBe('x'.repeat(2_000));
    expect(opened.open(long)).toBe('x'.repeat(2_000));
    expect(unseal).toHaveBeenCalledTimes(2);
  });
});
