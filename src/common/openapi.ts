import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { RATE_HEADERS, ValidationErrorBody } from './openapi.decorators';
import { DOCS_PATH } from './public-url';

const TAGS = {
  orders: 'Partner API: place, read, list, update, cancel and comment on your company’s orders.',
  products: 'Partner API: the products that can be ordered.',
  events: 'Partner API: your company’s order events, the same ones webhooks deliver.',
  logistics: 'Logistics API: the work queue and the facts that move orders forward.',
  admin: 'Admin API: companies, tokens, products, webhooks and the audit trail.',
  health: 'Liveness and readiness, without a token.',
};

/**
 * Every /api/v2 response passes the rate limiter first (CONTRACT §2), so every one of them may carry the
 * X-RateLimit-* headers; only a body over 1 MiB is refused before it.
 */
function documentRateLimitHeaders(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/v2/')) continue;
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch]) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (['408', '413', '415'].includes(status) || !response || !('description' in response)) continue;
        response.headers = { ...RATE_HEADERS, ...response.headers };
      }
    }
  }
}

const messageResponse = (description: string, message: string) => ({
  description,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/MessageBody' },
      example: { message },
    },
  },
});

/**
 * The body gate (src/common/request-body.ts) stands before every route: any request that carries a body may
 * get its refusals, whatever the route (CONTRACT §2, hostile input).
 */
const BODY_REFUSALS = {
  '400': {
    description: 'Malformed JSON, or JSON nested deeper than 32 levels (`errors.body`).',
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${ValidationErrorBody.name}` },
        example: { message: 'Bad request.', errors: { body: ['Nested too deeply.'] } },
      },
    },
  },
  '408': messageResponse(
    'The body did not arrive within the time allowed (30 s by default).',
    'Request timeout: the body did not arrive in time.',
  ),
  '413': messageResponse('The body is over 1 MiB.', 'Request body too large: the limit is 1 MiB.'),
  '415': messageResponse(
    'The body is not UTF-8 JSON: another Content-Type, another charset or an unsupported Content-Encoding.',
    'Unsupported media type: send the body as application/json (UTF-8).',
  ),
};

function documentBodyRefusals(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/v2/')) continue;
    for (const operation of [item.put, item.post, item.delete, item.patch]) {
      if (operation) operation.responses = { ...BODY_REFUSALS, ...operation.responses };
    }
  }
}

/** The OpenAPI 3 document, generated from the controllers and DTOs, at /api/docs (UI) and /api/docs-json. */
export function setupOpenApi(app: INestApplication, publicBaseUrl: string | undefined): void {
  const builder = new DocumentBuilder()
    .setTitle('Restaurant Orders API')
    .setDescription(
      'Partner companies place orders for products delivered to restaurant and merchant addresses, follow them ' +
        'through logistics, comment on and correct them. Every /api/v2 route needs `Authorization: Bearer <token>`.',
    )
    .setVersion('2')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'opaque',
      description:
        'API token issued by an administrator: `roa_` and 43 random base64url characters (not a JWT). Its role ' +
        '(partner, logistics, admin) decides which routes it may call.',
    })
    .addServer(
      publicBaseUrl ?? '/',
      'This service, in whichever environment serves this document (production, staging or local).',
    );
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build());
  documentBodyRefusals(document);
  documentRateLimitHeaders(document);
  for (const server of document.servers ?? []) Object.assign(server, { 'x-internal': false });
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, { jsonDocumentUrl: `${DOCS_PATH.slice(1)}-json` });
}
