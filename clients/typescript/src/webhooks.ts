import { Webhook, WebhookVerificationError as StandardWebhooksError } from 'standardwebhooks';
import type { components } from './schema.js';

/** An event as a webhook delivers it (and the events feed lists it): a union discriminated by `type`. */
export type WebhookEvent = components['schemas']['EventListResponse']['data'][number];

/** The request headers as Node's `http` (IncomingHttpHeaders) or the Fetch API (`Headers`) gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A delivery that did not pass verification: answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * The event of a webhook delivery, once its Standard Webhooks signature (HMAC-SHA256 with the endpoint's
 * `whsec_` secret over the id, the timestamp and the raw body) and its timestamp (at most 5 minutes from now,
 * either way) are verified; throws WebhookVerificationError otherwise. Pass the body exactly as it arrived,
 * before any JSON parsing: a re-serialised body does not match its signature.
 */
export function constructWebhookEvent(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const lookup = isFetchHeaders(headers) ? headers : fetchHeaders(headers);
  const signed: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = lookup.get(name);
    if (value !== null) signed[name] = value;
  }
  try {
    return new Webhook(secret).verify(body, signed) as WebhookEvent;
  } catch (error) {
    if (error instanceof StandardWebhooksError) throw new WebhookVerificationError(error.message);
    throw error;
  }
}

function isFetchHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof headers.get === 'function';
}

/** Node's headers (lower-case names, repeated ones as arrays) in a `Headers`, which ignores case. */
function fetchHeaders(headers: Record<string, string | string[] | undefined>): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const each of typeof value === 'string' ? [value] : (value ?? [])) result.append(name, each);
  }
  return result;
}
