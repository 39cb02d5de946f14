import type { ErrorObject } from 'ajv';
import OpenAPIRequestValidator, { type OpenAPIRequestValidatorArgs } from 'openapi-request-validator';
import OpenAPIResponseValidator, { type OpenAPIResponseValidatorArgs } from 'openapi-response-validator';

/**
 * Checks one HTTP response against the OpenAPI document the service serves: the route must be documented,
 * its status among the operation's responses, its content type the documented one, and its body valid
 * against the response schema (openapi-response-validator: ajv with OpenAPI 3.0 `nullable`). Object schemas
 * that list their properties are closed (`additionalProperties: false` unless the document says otherwise),
 * so a field the code sends but the document does not name is drift too.
 */

type Schema = Record<string, unknown>;
interface ResponseObject {
  content?: Record<string, { schema?: Schema }>;
}
interface Parameter {
  name: string;
  in: string;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}

export interface ObservedResponse {
  method: string;
  /** The request URL (absolute or a path); only its path is matched. */
  url: string;
  status: number;
  contentType: string | undefined;
  /** The parsed JSON body, or undefined when the response had none. */
  body: unknown;
}

/** Responses the document does not describe, on purpose; `*` matches any method. Keep this list short. */
export const UNDOCUMENTED: { method: string; path: RegExp; why: string }[] = [
  { method: 'GET', path: /^\/api\/docs-json$/, why: 'the OpenAPI document itself' },
  { method: 'GET', path: /^\/api\/docs(\/.*)?$/, why: 'Swagger UI: HTML, scripts and styles' },
  { method: 'GET', path: /^\/console(\/.*)?$/, why: 'the admin console: HTML, scripts and styles' },
  {
    method: '*',
    path: /^\/(nope|api\/v2\/nothing-here|metrics)$/,
    why: 'no such route: the 404 of every unknown route (metrics are on METRICS_PORT, never here)',
  },
  { method: 'GET', path: /^\/api\/v2\/%E0%A4%A$/, why: 'a malformed percent-encoding cannot name a route' },
  {
    method: 'OPTIONS',
    path: /^\/api\/v2\//,
    why: 'CORS preflights: answered by the CORS middleware (or 404 without CORS_ORIGINS), never an API operation',
  },
];

export interface ObservedRequest {
  method: string;
  /** The request URL (absolute or a path) with its query string. */
  url: string;
  headers: Record<string, string | undefined>;
  /** The JSON body sent, or undefined without one. */
  body: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Operation;
}

function routesOf(document: OpenApiDocument): Route[] {
  return Object.entries(document.paths)
    .flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        operation,
      })),
    )
    .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
}

/** Closes every object schema that lists its properties and says nothing about others (examples untouched). */
function closeObjectSchemas<T>(node: T): T {
  if (Array.isArray(node)) return node.map(closeObjectSchemas) as T;
  if (typeof node !== 'object' || node === null) return node;
  const copy = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'example' || key === 'examples' ? value : closeObjectSchemas(value),
    ]),
  );
  if (typeof copy.properties === 'object' && !('additionalProperties' in copy))
    copy.additionalProperties = false;
  return copy as T;
}

/** `body/orders/0/order_id: must be string`; an unexpected field is named. */
function describe(error: ErrorObject): string {
  const at = `body${error.instancePath.replace(/^\/response/, '')}`;
  const extra =
    error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${at}: ${error.message}${extra}`;
}

export class OpenApiContract {
  private readonly routes: Route[];
  private readonly components: Record<string, unknown>;
  private readonly validators = new Map<Route, OpenAPIResponseValidator>();
  /** Requests are checked against the document as served: request schemas stay open (unknown fields are ignored). */
  private readonly requestRoutes: Route[];
  private readonly requestSchemas: Record<string, unknown>;
  private readonly requestValidators = new Map<Route, OpenAPIRequestValidator>();

  constructor(document: OpenApiDocument) {
    const closed = closeObjectSchemas(document);
    this.routes = routesOf(closed);
    this.components = closed.components ?? {};
    this.requestRoutes = routesOf(document);
    this.requestSchemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  }

  /**
   * Why the request does not match the document (its path, query, header parameters and JSON body), or
   * undefined when it does or names no documented operation (the response check reports that).
   */
  checkRequest(request: ObservedRequest): string | undefined {
    const method = request.method.toUpperCase();
    const url = new URL(request.url, 'http://service');
    const route = this.requestRoutes.find(
      (candidate) => candidate.method === method && candidate.pattern.test(url.pathname),
    );
    if (!route) return undefined;
    const parameters = route.operation.parameters ?? [];
    const names = [...route.template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const values = new RegExp(`^${route.template.replace(/\{[^}]+\}/g, '([^/]+)')}$`)
      .exec(url.pathname)!
      .slice(1);
    const params = Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(values[index])]));
    const query: Record<string, unknown> = {};
    for (const [name, value] of url.searchParams)
      query[name] = name in query ? [query[name], value].flat() : value;
    // Path and query values are text on the wire; the document types them (integer ids and pages).
    for (const parameter of parameters) {
      const where = parameter.in === 'path' ? params : parameter.in === 'query' ? query : undefined;
      const value = where?.[parameter.name];
      if (where && parameter.schema?.type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value))
        where[parameter.name] = Number(value);
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const failure = this.requestValidatorFor(route).validateRequest({
      params,
      query,
      headers,
      body: structuredClone(request.body),
    }) as { errors: { message: string }[] } | undefined;
    if (!failure) return undefined;
    const reasons = failure.errors.map((error) => `  ${error.message}`).join('\n');
    return `${method} ${url.pathname}${url.search} does not match the document's ${route.method} ${route.template} request:\n${reasons}\nbody: ${JSON.stringify(request.body)?.slice(0, 2000)}`;
  }

  private requestValidatorFor(route: Route): OpenAPIRequestValidator {
    let validator = this.requestValidators.get(route);
    if (!validator) {
      const args = {
        parameters: route.operation.parameters ?? [],
        requestBody: route.operation.requestBody,
        componentSchemas: this.requestSchemas,
        errorTransformer: (error: { message: string; location?: string; path?: string }) => ({
          message: `${error.location ?? 'request'}${error.path ? `.${error.path}` : ''}: ${error.message}`,
        }),
      };
      validator = new OpenAPIRequestValidator(args as unknown as OpenAPIRequestValidatorArgs);
      this.requestValidators.set(route, validator);
    }
    return validator;
  }

  /** Why the response does not match the document, or undefined when it does (or is exempt). */
  check(response: ObservedResponse): string | undefined {
    const method = response.method.toUpperCase();
    const path = new URL(response.url, 'http://service').pathname;
    if (UNDOCUMENTED.some((entry) => [method, '*'].includes(entry.method) && entry.path.test(path)))
      return undefined;
    const route = this.routes.find(
      (candidate) => candidate.method === method && candidate.pattern.test(path),
    );
    const seen = `${method} ${path} answered ${response.status} ${response.contentType ?? '(no content type)'}`;
    if (!route) return `${seen}, but the OpenAPI document has no operation for ${method} ${path}.`;
    const where = `the document's ${route.method} ${route.template}`;
    const documented = route.operation.responses[String(response.status)];
    if (!documented)
      return `${seen}, but ${where} lists only ${Object.keys(route.operation.responses).join(', ')}.`;
    const mediaTypes = Object.keys(documented.content ?? {});
    const mediaType = response.contentType?.split(';')[0].trim();
    if (response.body === undefined ? mediaTypes.length > 0 : !mediaTypes.includes(mediaType ?? ''))
      return `${seen}, but ${where} ${response.status} has ${mediaTypes.join(', ') || 'no content'}.`;
    if (response.body === undefined) return undefined;
    const failure = this.validatorFor(route).validateResponse(response.status, response.body);
    if (!failure) return undefined;
    const reasons = (failure.errors as { message: string }[]).map((error) => `  ${error.message}`).join('\n');
    return `${seen}, whose body does not match ${where} ${response.status} schema:\n${reasons}\nbody: ${JSON.stringify(response.body).slice(0, 2000)}`;
  }

  private validatorFor(route: Route): OpenAPIResponseValidator {
    let validator = this.validators.get(route);
    if (!validator) {
      const args = {
        responses: route.operation.responses,
        components: this.components,
        errorTransformer: (_mapped: unknown, error: ErrorObject) => ({ message: describe(error) }),
      };
      // Its declared `responses` type is OpenAPI 2's ({schema}); at run time it reads OpenAPI 3's `content` too.
      validator = new OpenAPIResponseValidator(args as unknown as OpenAPIResponseValidatorArgs);
      this.validators.set(route, validator);
    }
    return validator;
  }
}
