import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { StoredHeaders } from './webhook-delivery.entity';
import { bodyStart, boundedHeaders, RESPONSE_BODY_BYTES } from './webhook-exchange';
import { isAllowedAddressLiteral, publicOnlyLookup } from './webhook-url';

export interface WebhookMessage {
  url: string;
  /** The endpoint's secret, then the previous one while a rotation's overlap lasts: one signature each. */
  secrets: string[];
  /** The event id: `webhook-id`, the same on every retry so receivers can deduplicate. */
  eventId: string;
  /** The raw JSON body, exactly as signed. */
  body: string;
}

export interface SendResult {
  /** The receiver's status, or null when it did not answer (refused, timed out, bad address). */
  statusCode: number | null;
  durationMs: number;
  /** Why there was no answer, or the status line of a non-2xx one. */
  error: string | null;
  /** A Retry-After the receiver sent with a 429 or 503, in milliseconds. */
  retryAfterMs: number | null;
  /** The headers sent (the signature among them; the secret is never a header). */
  requestHeaders: StoredHeaders;
  /** What came back, bounded (webhook-exchange.ts); null when there was no answer. */
  response: { headers: StoredHeaders; body: string; bodyTruncated: boolean } | null;
}

const USER_AGENT = 'restaurant-orders-api-webhooks/1';
/** What is read of a receiver's answer; the rest is discarded. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const stopReason = (signal: AbortSignal): string => String(signal.reason).slice(0, 500);

function retryAfterMs(value: string | undefined): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Ends the attempt early (its endpoint stopped receiving): the result's error is the signal's reason. */
  stop?: AbortSignal;
}

/**
 * POSTs one signed event (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature over
 * `id.timestamp.body`, space-separated `v1,<signature>` entries, one per secret). Success is a 2xx within the timeout; redirects are not followed (a 3xx is a failure);
 * connections go only to public addresses unless `allowPrivate`. Nothing is sent once `stop` has fired.
 */
export function sendWebhook(message: WebhookMessage, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const now = new Date();
  const signature = message.secrets
    .map((secret) => new Webhook(secret).sign(message.eventId, now, message.body))
    .join(' ');
  const url = new URL(message.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestHeaders = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': USER_AGENT,
    'webhook-id': message.eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return new Promise<SendResult>((resolve) => {
    const finish = (
      statusCode: number | null,
      error: string | null,
      response: SendResult['response'] = null,
      retryAfter: number | null = null,
    ) =>
      resolve({
        statusCode,
        durationMs: Math.round(performance.now() - started),
        error,
        retryAfterMs: retryAfter,
        requestHeaders,
        response,
      });
    if (options.stop?.aborted) return finish(null, stopReason(options.stop));
    if (!isAllowedAddressLiteral(url, options.allowPrivate)) {
      return finish(null, `${url.hostname} is not a public address`);
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const outgoing = send(
      url,
      {
        method: 'POST',
        lookup: publicOnlyLookup(options.allowPrivate),
        signal: options.stop ? AbortSignal.any([timeout, options.stop]) : timeout,
        headers: requestHeaders,
      },
      (incoming) => {
        let read = 0;
        const kept: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => {
          if (read < RESPONSE_BODY_BYTES) kept.push(chunk.subarray(0, RESPONSE_BODY_BYTES - read));
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) incoming.destroy();
        });
        incoming.on('close', () => {
          const status = incoming.statusCode ?? 0;
          const response = {
            headers: boundedHeaders(incoming.rawHeaders),
            body: bodyStart(kept),
            bodyTruncated: read > RESPONSE_BODY_BYTES,
          };
          if (status >= 200 && status < 300) return finish(status, null, response);
          const retryAfter =
            status === 429 || status === 503 ? retryAfterMs(incoming.headers['retry-after']) : null;
          finish(
            status,
            `HTTP ${status}${incoming.statusMessage ? ` ${incoming.statusMessage}` : ''}`.slice(0, 500),
            response,
            retryAfter,
          );
        });
      },
    );
    outgoing.on('error', (error: Error) => {
      if (options.stop?.aborted) return finish(null, stopReason(options.stop));
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      finish(null, timedOut ? `No answer within ${options.timeoutMs} ms` : error.message.slice(0, 500));
    });
    outgoing.end(message.body);
  });
}
