import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS } from './idempotent-operations.js';
import { type ListInit, type ListItem, type ListPath, paginate } from './pages.js';
import { type RetryOptions, retryingFetch } from './retry.js';
import type { components, paths } from './schema.js';

/** A named schema of the document: `Schema<'OrderResponse'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface RestaurantOrdersClientOptions extends ClientOptions {
  /** Retries of requests answered 429 or 503 (default: 2, waiting for `Retry-After`). */
  retry?: RetryOptions;
}

export interface RestaurantOrdersClient extends Client<paths> {
  /**
   * Every element of a list, across all its pages:
   * `for await (const order of api.paginate('/api/v2/order', { params: { query: { state: 'PLACED' } } }))`.
   */
  paginate<Path extends ListPath>(
    path: Path,
    ...init: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
  ): AsyncGenerator<ListItem<Path>, void, undefined>;
}

/** Gives each write that accepts one an `Idempotency-Key` of its own, unless the caller set one. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (
      IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`) &&
      !request.headers.has('Idempotency-Key')
    ) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    return request;
  },
};

/**
 * A client of the Restaurant Orders API: every path, parameter, body and response of the OpenAPI document,
 * checked by the compiler. `baseUrl` is the service origin (`https://api.example.com`); `token` a bearer token
 * of any role (its role decides which routes answer). Requests answered 429 or 503 are sent again after
 * `Retry-After`, and partner writes carry an `Idempotency-Key`, so a retried placement is never a second order.
 */
export function createRestaurantOrdersClient(
  baseUrl: string,
  token: string,
  { retry, ...options }: RestaurantOrdersClientOptions = {},
): RestaurantOrdersClient {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    ...options,
    baseUrl,
    headers: { ...options.headers, Authorization: `Bearer ${token}` },
    fetch: retryingFetch(fetch, retry),
  });
  client.use(idempotencyKeys);
  return Object.assign(client, {
    paginate: <Path extends ListPath>(
      path: Path,
      ...init: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
    ) => paginate(client, path, ...init),
  });
}
