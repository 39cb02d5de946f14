import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../http/idempotency-headers';
import { MAX_DB_INTEGER } from '../../kernel/db-integer.validator';
import { RATE_HEADERS, ValidationErrorBody } from './openapi.decorators';
import { HEADER_MAX_LENGTH } from '../../kernel/openapi.formats';
import { DOCS_PATH } from '../http/public-url';
import { applyDocumentContributions, declaredApiTags } from './document-contributions';

type Node = Record<string, unknown>;

/** Every object in the document that a schema may sit in (examples are left as they are). */
function* nodes(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const item of node) yield* nodes(item);
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  yield node as Node;
  for (const [key, value] of Object.entries(node))
    if (key !== 'example' && key !== 'examples') yield* nodes(value);
}

/**
 * The one pass over the generated document, for what the decorators cannot say (each step says why).
 */
function finishDocument(document: OpenAPIObject): void {
  documentBodyRefusals(document);
  for (const node of nodes(document)) {
    // The API has no fractional numbers: every number is an id, a count, a page or a version, none negative,
    // each a PostgreSQL integer unless its decorator says more. The generator writes `number` for a TypeScript
    // `number`, which typed clients turn into a float.
    if (node.type === 'number' || node.type === 'integer') {
      Object.assign(node, { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_DB_INTEGER, ...node });
      node.type = 'integer';
    }
    // For a query parameter described by a combinator (the forms of a boolean), the generator keeps the
    // reflected type beside it, which would allow only that one form.
    if (node.type && (node.anyOf || node.oneOf)) delete node.type;
    if (node.nullable && !('type' in node)) nullableWithoutType(document, node);
  }
  documentResponseHeaders(document);
  applyDocumentContributions(document);
  for (const server of document.servers ?? []) Object.assign(server, { 'x-internal': false });
}

/**
 * OpenAPI 3.0 `nullable` applies only beside `type`, but the generator writes it beside a combinator for a
 * nullable property described by one (`allOf: [$ref]` for a nullable object, `anyOf` for the forms of an
 * input): a nullable reference becomes a nullable copy of the object it names; a combinator with a nullable
 * branch needs nothing more.
 */
function nullableWithoutType(document: OpenAPIObject, node: Node): void {
  const branches = (node.allOf ?? node.anyOf ?? node.oneOf) as Node[] | undefined;
  if (node.allOf && branches?.length === 1 && typeof branches[0].$ref === 'string') {
    const name = branches[0].$ref.split('/').pop()!;
    const own = { ...node };
    delete own.allOf;
    delete node.allOf;
    Object.assign(node, structuredClone(document.components!.schemas![name]), own);
  } else if (branches?.some((branch) => branch.nullable)) {
    delete node.nullable;
  } else {
    throw new Error(
      `OpenAPI: nullable without a type and without a nullable branch: ${JSON.stringify(node)}`,
    );
  }
}

/** CONTRACT §2: a client's own X-Request-Id is echoed when it is sane; anything else is replaced, never refused. */
const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Your id for this request, to find it in our logs: echoed in the response when it is 1 to 128 of ' +
    '`A-Z a-z 0-9 . _ : -`; any other value is replaced by a generated UUID, not refused.',
  // Any value Node takes as a header value (tab, visible ASCII, Latin-1): the service refuses none of them.
  schema: {
    type: 'string',
    maxLength: HEADER_MAX_LENGTH,
    pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$',
    example: '4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e',
  },
} as const;

const REQUEST_ID_HEADER = {
  description: 'The id of this request: the X-Request-Id sent when it was sane, else a generated UUID.',
  schema: {
    type: 'string',
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    example: '4f1c2f0e-5b0a-4c4e-9d8e-1f0a2b3c4d5e',
  },
};

const REPLAYED = {
  description: 'Present on a repeat of an Idempotency-Key: this is the stored first response, replayed.',
  schema: { type: 'string', enum: ['true'] },
};

/** The statuses a repeat of an Idempotency-Key may replay: those the route itself decided (5xx are not kept). */
const REPLAYABLE = /^(2..|400|404|409|412)$/;

/**
 * The headers of every response: X-Request-Id on all of them (the request log runs first, CONTRACT §2); the
 * X-RateLimit-* headers on every /api/v2 response (the body gate runs after the rate limiter, so its 408, 413
 * and 415 carry them too);
 * Idempotent-Replayed where an Idempotency-Key repeat may replay the response.
 */
function documentResponseHeaders(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of [item.get, item.head, item.put, item.post, item.delete, item.patch]) {
      const idempotent = operation?.parameters?.some(
        (parameter) => 'name' in parameter && parameter.name === IDEMPOTENCY_KEY_HEADER,
      );
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (!response || !('description' in response)) continue;
        response.headers = {
          'X-Request-Id': REQUEST_ID_HEADER,
          ...(path.startsWith('/api/v2/') && RATE_HEADERS),
          ...(idempotent && REPLAYABLE.test(status) && { [REPLAYED_HEADER]: REPLAYED }),
          ...response.headers,
        };
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
 * The body gate (src/platform/http/request-body.ts) stands before every route: any request that carries a body may
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
  for (const tag of declaredApiTags()) builder.addTag(tag.name, tag.description);
  builder.addGlobalParameters(REQUEST_ID_PARAMETER);
  const document = SwaggerModule.createDocument(app, builder.build());
  finishDocument(document);
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, { jsonDocumentUrl: `${DOCS_PATH.slice(1)}-json` });
}
