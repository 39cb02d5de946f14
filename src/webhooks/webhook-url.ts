import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A URL's host as DNS or an address literal: without the brackets of an IPv6 literal. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries, by the prefixes that embed one (CONTRACT §5): IPv4-compatible
 * `::/96` and IPv4-mapped `::ffff:0:0/96` (with its translated form `::ffff:0:0:0/96`), NAT64 `64:ff9b::/96`
 * (the last 32 bits), 6to4 `2002::/16` (bits 16–47), Teredo `2001::/32` (the server, bits 32–63, and the
 * client, the last 32 bits inverted). Null when it embeds none.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const [a, b, c, d, e, f, g, h] = address.parts;
  const zeroPrefix = a === 0 && b === 0 && c === 0 && d === 0;
  if (zeroPrefix && ((e === 0 && (f === 0 || f === 0xffff)) || (e === 0xffff && f === 0))) {
    return [ipv4(g, h)];
  }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return [ipv4(g, h)];
  if (a === 0x2002) return [ipv4(b, c)];
  if (a === 0x2001 && b === 0) return [ipv4(c, d), ipv4(g ^ 0xffff, h ^ 0xffff)];
  return null;
}

/**
 * Whether an address is on the public internet. Loopback, private, link-local, unique-local, carrier-grade
 * NAT, multicast, reserved and unspecified addresses are not (OWASP API7, server-side request forgery);
 * an IPv6 address that embeds IPv4 addresses is judged by them, so `::127.0.0.1` is loopback.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const [a, b, c] = (parsed as ipaddr.IPv6).parts;
  if (a === 0x64 && b === 0xff9b && c === 1) return false; // local-use NAT64 (RFC 8215): private by definition
  const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
  if (embedded) return embedded.every((inner) => inner.range() === 'unicast');
  return parsed.range() === 'unicast';
}

/**
 * Whether an outgoing connection to the URL may be made as far as its host is an address literal: Node
 * connects to a literal without any DNS lookup, so publicOnlyLookup never sees it and it is judged here.
 */
export function isAllowedAddressLiteral(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return allowPrivate || !ipaddr.isValid(host) || isPublicAddress(host);
}

/** Why a URL cannot be a webhook destination by its form alone, or null when its form is fine. */
export function webhookUrlFormError(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The url must be an absolute http or https URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The url must use http or https.';
  if (url.username || url.password) return 'The url may not carry a user name or password.';
  return null;
}

const resolveAll = (host: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** Why the URL's host may not be sent to (it resolves to a non-public address), or null when it may. */
export async function webhookHostError(value: string, allowPrivate: boolean): Promise<string | null> {
  const host = hostOf(new URL(value));
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return 'The url host does not resolve.';
  }
  if (allowPrivate || addresses.every((entry) => isPublicAddress(entry.address))) return null;
  return 'The url must not point to a loopback, private or link-local address (for local testing, start the service with WEBHOOK_ALLOW_PRIVATE=true).';
}

/**
 * A DNS lookup for outgoing webhook connections that refuses non-public addresses, so that a host which
 * resolved to a public address when registered cannot be re-pointed at an internal one (DNS rebinding).
 */
export function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const allowed = addresses.filter((entry) => allowPrivate || isPublicAddress(entry.address));
      if (allowed.length === 0) {
        return callback(new Error(`${hostname} resolves only to non-public addresses`), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
