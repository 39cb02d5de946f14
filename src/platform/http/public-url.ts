import { isIPv6 } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { fieldError } from '../../kernel/domain-error';

/** A DNS name (an IPv4 address is one too): ASCII letters, digits, `-` and `_` in labels of at most 63. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
const HOST = /^(?:\[([0-9a-f:.]+)\]|([^:]+))(?::(\d{1,5}))?$/i;

/** Whether a Host header can go into a URL as it is: a host name or an IP address ([IPv6]), with a port or not. */
export function isValidHost(host: string): boolean {
  const [, ipv6, name, port] = HOST.exec(host) ?? [];
  if (ipv6 === undefined && name === undefined) return false;
  if (port !== undefined && Number(port) > 65_535) return false;
  return ipv6 !== undefined ? isIPv6(ipv6) : HOST_NAME.test(name);
}

/**
 * Without PUBLIC_BASE_URL the links a response carries (pagination, the docs URL of a 429) are built from the
 * Host header, so a request whose Host is anything but a host and port (`evil.example/x?`) is a 400 naming
 * it, whatever the route, before anything can use it. A request without one (HTTP/1.0) is answered as
 * localhost's.
 */
export function refuseInvalidHost(request: Request, _response: Response, next: NextFunction): void {
  const host = request.headers.host;
  next(
    host === undefined || isValidHost(host)
      ? undefined
      : fieldError('Host', 'The Host header must be a host name or an IP address, with an optional port.'),
  );
}

/** The base URL clients reach us by: PUBLIC_BASE_URL when configured, else what the request shows. */
export function publicBaseUrl(request: Request, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}

export const DOCS_PATH = '/api/docs';
