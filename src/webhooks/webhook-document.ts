import { getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import { EVENT_TYPES, eventSchemaOf } from '../outbox/event-catalog';

const WEBHOOK_HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event id, the same on every retry: deduplicate on it.',
    schema: { type: 'string', pattern: '^evt_[1-9][0-9]{0,17}$', example: 'evt_1042' },
  },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds of this attempt: refuse it when more than 5 minutes off your clock.',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$', example: '1795332612' },
  },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` entries over `<webhook-id>.<webhook-timestamp>.<raw body>`, ' +
      'keyed with the base64-decoded part of the endpoint secret after `whsec_` (Standard Webhooks).',
    schema: {
      type: 'string',
      maxLength: 1000,
      pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
      example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/**
 * CONTRACT §5's webhooks, one per event type: what the service POSTs to each registered endpoint. OpenAPI
 * 3.0 has no `webhooks` (3.1 has), so they are the `x-webhooks` extension that Redocly and Swagger UI read.
 */
function webhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${getSchemaPath(eventSchemaOf(type)).split('/').pop()}`,
          summary: `The ${type} event`,
          description:
            'Sent to every active endpoint of the company. Any 2xx within WEBHOOK_TIMEOUT_MS is success; ' +
            'anything else (redirects included) is retried with exponential backoff for 24 hours; 410 Gone ' +
            'disables the endpoint.',
          tags: ['webhooks'],
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: getSchemaPath(eventSchemaOf(type)) } } },
          },
          responses: {
            '200': { description: 'Received (any 2xx).' },
            '410': { description: 'Gone: the service disables the endpoint.' },
          },
        },
      },
    ]),
  );
}

/** The document's `x-webhooks` (WebhooksModule contributes it). */
export function documentWebhooks(document: OpenAPIObject): void {
  Object.assign(document, { 'x-webhooks': webhooks() });
}
