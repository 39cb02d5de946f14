import type { LookupAddress } from 'node:dns';
import { sendWebhook } from './webhook-sender';
import {
  isAllowedAddressLiteral,
  isPublicAddress,
  publicOnlyLookup,
  webhookHostError,
  webhookUrlFormError,
} from './webhook-url';

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

/** CONTRACT §5: every spelling of a non-public destination, IPv6 forms that embed an IPv4 address included. */
const REFUSED_URLS = [
  // IPv4, in every notation the URL parser accepts
  'http://127.0.0.1/',
  'http://127.1/',
  'http://0x7f.0.0.1/',
  'http://0177.0.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.0.1/',
  'http://169.254.169.254/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://192.0.2.1/',
  'http://198.18.0.1/',
  'http://240.0.0.1/',
  // IPv6
  'http://[::1]/',
  'http://[::]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  // IPv4-compatible ::/96
  'http://[::127.0.0.1]:3799/',
  'http://[::7f00:1]/',
  'http://[0:0:0:0:0:0:127.0.0.1]/',
  'http://[::10.0.0.1]/',
  'http://[::a9fe:a9fe]/',
  'http://[::192.168.1.1]/',
  'http://[::c0a8:101]/',
  'http://[::0.0.0.0]/',
  // IPv4-mapped ::ffff:0:0/96 and IPv4-translated ::ffff:0:0:0/96
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[::FFFF:7F00:0001]/',
  'http://[::ffff:192.168.0.1]/',
  'http://[::ffff:0:127.0.0.1]/',
  'http://[::ffff:0:a00:1]/',
  // NAT64 64:ff9b::/96, and the local-use 64:ff9b:1::/48
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[64:ff9b::10.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b::c0a8:1]/',
  'http://[64:ff9b:1::a00:1]/',
  // 6to4 2002::/16
  'http://[2002:7f00:1::]/',
  'http://[2002:7f00:0001::1]/',
  'http://[2002:a00:1::1]/',
  'http://[2002:a9fe:a9fe::]/',
  'http://[2002:c0a8:101::1]/',
  'http://[2002:ac10:1::1]/',
  // Teredo 2001::/32: the server (bits 32-63) and the client (the last 32 bits, inverted)
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  'http://[2001:0:7f00:1::1]/',
  'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/',
  'http://[2001::7f00:1]/',
  'http://[2001:0:a00:1:8000:63bf:a247:2bdd]/',
];

/** Public destinations, also when spelled through the same IPv6 forms. */
const ACCEPTED_URLS = [
  'http://93.184.216.34/',
  'https://[2606:2800:220:1:248:1893:25c8:1946]/',
  'http://[::ffff:93.184.216.34]/',
  'http://[::8.8.8.8]/',
  'http://[64:ff9b::8.8.8.8]/',
  'http://[2002:5db8:d822::1]/',
  'http://[2001:0:4136:e378:8000:63bf:a247:2bdd]/',
];

describe('webhook destinations, in every spelling (registration and every connection)', () => {
  it('has at least 60 refused spellings', () => {
    expect(new Set(REFUSED_URLS).size).toBeGreaterThanOrEqual(60);
  });

  it.each(REFUSED_URLS)('refuses %s at registration and at connection', async (url) => {
    expect(await webhookHostError(url, false)).toBe(
      'The url must not point to a loopback, private or link-local address (for local testing, start the service with WEBHOOK_ALLOW_PRIVATE=true).',
    );
    expect(isAllowedAddressLiteral(new URL(url), false)).toBe(false);
    expect(isAllowedAddressLiteral(new URL(url), true)).toBe(true);
  });

  it.each(ACCEPTED_URLS)('accepts %s', async (url) => {
    expect(await webhookHostError(url, false)).toBeNull();
    expect(isAllowedAddressLiteral(new URL(url), false)).toBe(true);
  });

  it('never dials an address literal that is not public, though no DNS lookup is made for it', async () => {
    const result = await sendWebhook(
      {
        url: 'http://[::127.0.0.1]:3799/',
        secrets: [`whsec_${'A'.repeat(32)}`],
        eventId: 'evt_1',
        body: '{}',
      },
      { timeoutMs: 1_000, allowPrivate: false },
    );
    expect(result).toMatchObject({ statusCode: null, error: '[::7f00:1] is not a public address' });
  });
});
