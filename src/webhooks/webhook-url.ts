import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether an address is on the public internet. Loopback, private, link-local, unique-local, carrier-grade
 * NAT, multicast, reserved and unspecified addresses are not (OWASP API7, server-side request forgery);
 * an IPv4 address mapped into IPv6 is judged as the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
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
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
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
