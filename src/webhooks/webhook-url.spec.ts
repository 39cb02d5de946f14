import type { LookupAddress } from 'node:dns';
import { isPublicAddress, publicOnlyLookup, webhookUrlFormError } from './webhook-url';

/** Resolves a host through the webhook sender's lookup, as an outgoing connection would. */
const connectLookup = (host: string, allowPrivate: boolean) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    publicOnlyLookup(allowPrivate)(host, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses as unknown as LookupAddress[]),
    ),
  );

describe('isPublicAddress', () => {
  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['loopback', '127.0.0.1'],
    ['loopback v6', '::1'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.20.0.5'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['link-local v6', 'fe80::1'],
    ['unique-local v6', 'fd00::1'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['unspecified', '0.0.0.0'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['multicast', '224.0.0.1'],
    ['not an address', 'example.com'],
  ])('refuses %s (%s)', (_label, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('webhookUrlFormError', () => {
  it('accepts http and https URLs', () => {
    expect(webhookUrlFormError('https://hooks.example.com/orders')).toBeNull();
    expect(webhookUrlFormError('http://hooks.example.com:8080/orders?x=1')).toBeNull();
  });

  it('refuses other schemes, relative URLs and credentials in the URL', () => {
    expect(webhookUrlFormError('ftp://hooks.example.com/')).toMatch(/http or https/);
    expect(webhookUrlFormError('file:///etc/passwd')).toMatch(/http or https/);
    expect(webhookUrlFormError('/orders')).toMatch(/absolute/);
    expect(webhookUrlFormError('https://user:pw@hooks.example.com/')).toMatch(/user name or password/);
  });
});

describe('publicOnlyLookup (every outgoing webhook connection)', () => {
  it('refuses to connect to a host that resolves to loopback, even if it was public when registered', async () => {
    await expect(connectLookup('localhost', false)).rejects.toThrow(
      'localhost resolves only to non-public addresses',
    );
  });

  it('connects to it when WEBHOOK_ALLOW_PRIVATE is set', async () => {
    const addresses = await connectLookup('localhost', true);
    expect(addresses.map((entry) => entry.address)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]),
    );
  });
});
