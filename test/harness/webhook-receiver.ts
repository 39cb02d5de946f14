import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { eventually } from './eventually';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it arrived (what the signature covers). */
  body: string;
  /** The status the receiver answered with. */
  status: number;
}

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  received: ReceivedWebhook[];
  /** Requests to `path` so far. */
  at(path: string): ReceivedWebhook[];
  /** Resolves once `predicate` holds for what was received, or rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Service settings for webhook specs: private receivers allowed, fast polls and retries, no rate limits. */
export const FAST_DISPATCH = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_TIMEOUT_MS: '1000',
  RATE_LIMIT_PER_MINUTE: '100000',
  ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
};

/** What `answer` returns to leave a request unanswered (until the receiver closes): a receiver that hangs. */
export const NO_ANSWER = 0;

/**
 * A local webhook receiver, on `port` (default: a free one). `answer` decides each request's status from what it is and what came before it
 * (for example: fail the first two tries of each webhook-id), or NO_ANSWER.
 */
export async function startWebhookReceiver(
  answer: (request: Omit<ReceivedWebhook, 'status'>, before: ReceivedWebhook[]) => number = () => 200,
  port = 0,
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const incoming = {
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      };
      const status = answer(incoming, received);
      received.push({ ...incoming, status });
      if (status === NO_ANSWER) return;
      const location = status >= 300 && status < 400 ? { location: '/elsewhere' } : {};
      response.writeHead(status, { 'content-type': 'text/plain', ...location }).end('ok');
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`,
    received,
    at: (path) => received.filter((entry) => entry.path === path),
    waitFor: (predicate, timeoutMs) =>
      eventually(
        () => predicate(received),
        () => `Webhooks not received in time; got ${received.length}`,
        timeoutMs,
      ),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Verifies a Standard Webhooks signature the way a partner would, with node:crypto only: HMAC-SHA256 keyed
 * with the decoded `whsec_` secret over `id.timestamp.body`, compared in constant time with each `v1,` entry.
 */
export function hasValidSignature(webhook: ReceivedWebhook, secret: string): boolean {
  const id = webhook.headers['webhook-id'];
  const timestamp = webhook.headers['webhook-timestamp'];
  const signatures = webhook.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${webhook.body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** An event as webhooks and the events feed carry it (CONTRACT §4.8). */
export interface EventBody {
  id: string;
  type: string;
  timestamp: string;
  data: { order_id: number; state: string; [key: string]: unknown };
}

/** The event a webhook delivered. */
export const parseEvent = (webhook: ReceivedWebhook): EventBody => JSON.parse(webhook.body) as EventBody;

/** Oldest first: event ids are `evt_` and a number that grows with each event. */
export const byEventId = (a: EventBody, b: EventBody): number =>
  Number(a.id.slice(4)) - Number(b.id.slice(4));
