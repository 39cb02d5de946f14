import { isValidHost } from './public-url';

describe('isValidHost', () => {
  it.each([
    'localhost',
    'localhost:3000',
    'api.partner.example',
    'API.Partner.Example.:443',
    'orders_api:8080',
    '10.0.0.7:65535',
    '[::1]',
    '[2001:db8::7]:8443',
  ])('takes %s', (host) => {
    expect(isValidHost(host)).toBe(true);
  });

  it.each([
    '',
    'evil.example/x?',
    'evil.example?',
    'evil.example#x',
    'user@evil.example',
    'evil example',
    'evil.example:',
    'evil.example:65536',
    'evil.example:80:80',
    '-evil.example',
    'evil..example',
    `${'a'.repeat(64)}.example`,
    '[::1',
    '[not-an-ip]:80',
    '::1',
    'bücher.example',
  ])('refuses %p', (host) => {
    expect(isValidHost(host)).toBe(false);
  });
});
