import createClient, { type Client, type ClientOptions, mergeHeaders, type Middleware } from 'openapi-fetch';
import { type EventFeedOptions, eventFeed } from './events.js';
import { type ImportOrdersOptions, type ImportResult, importOrders } from './imports.js';
import { IDEMPOTENT_OPERATIONS } from './idempotent-operations.js';
import { OPERATIONS, type OperationMethods } from './operations.js';
import { type ListInit, type ListItem, type ListPath, paginate } from './pages.js';
import { type RetryOptions, retryingFetch } from './retry.js';
import type { components, paths } from './schema.js';
import { SDK_VERSION } from './version.js';
import type { WebhookEvent } from './webhooks.js';

/** A named schema of the document: `Schema<'OrderResponse'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** What the client names itself in `User-Agent` (outside browsers, which send their own). */
export const USER_AGENT = `restaurant-orders-sdk/${SDK_VERSION}`;

export interface RestaurantOrdersClientOptions extends ClientOptions {
  /** Retries (default: 2, after `Retry-After` when the answer has one): see the README. */
  retry?: RetryOptions;
  /**
   * How long each try waits for its answer to begin (its status and headers), in milliseconds (default 30000);
   * then it counts as a failure: retried when safe, else thrown as a RestaurantOrdersError of kind `timeout`.
   */
  timeoutMs?: number;
}

export interface RestaurantOrdersClient extends Client<paths>, OperationMethods {
  /**
   * Every element of a list, across all its pages:
   * `for await (const order of client.paginate('/api/v2/order', { params: { query: { state: 'PLACED' } } }))`.
   */
  paginate<Path extends ListPath>(
    path: Path,
    ...init: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
  ): AsyncGenerator<ListItem<Path>, void, undefined>;
  /**
   * The company's events feed, oldest first, from `after` on: `for await (const event of client.events({ after }))`.
   * It ends at the end of the feed, or with `follow: true` keeps polling for new events until `signal` aborts.
   */
  events(options?: EventFeedOptions): AsyncGenerator<WebhookEvent, void, undefined>;
  /**
   * Uploads a file of orders as a bulk import, waits until it has ended, then yields each line's result in line
   * order: `for await (const result of client.importOrders(file, { format: 'csv' }))`.
   */
  importOrders(
    file: string | Uint8Array | Blob,
    options?: ImportOrdersOptions,
  ): AsyncGenerator<ImportResult, void, undefined>;
}

/**
 * Browsers send a User-Agent of their own (Chrome drops a script's, Firefox would send it and widen the CORS
 * preflight), so the SDK names itself everywhere else: in a page or a worker it sets none.
 */
function inBrowser(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return scope.document !== undefined || scope.WorkerGlobalScope !== undefined;
}

/** The calls a client offers: openapi-fetch's request(), which the operation methods call by method and path. */
type AnyCall = (method: string, path: string, init?: unknown) => Promise<unknown>;

/**
 * A client of the Restaurant Orders API: every operation as a method named by its operationId
 * (`client.placeOrder({ body })`) and by path (`client.POST('/api/v2/order', { body })`), its parameters, body and
 * response checked by the compiler. `baseUrl` is the service origin (`https://api.example.com`); `token` a bearer
 * token of any role (its role decides which routes answer). Partner writes carry an `Idempotency-Key` (the
 * caller's own, else one the client makes), and what is safe to send again is sent again (retry.ts), so a
 * retried placement is never a second order.
 */
export function createRestaurantOrdersClient(
  baseUrl: string,
  token: string,
  { retry, timeoutMs, ...options }: RestaurantOrdersClientOptions = {},
): RestaurantOrdersClient {
  const keyed = new WeakSet<Request>();
  /** Gives each write that accepts one an `Idempotency-Key` of its own, unless the caller set one. */
  const idempotencyKeys: Middleware = {
    onRequest({ request, schemaPath }) {
      if (!IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`)) return request;
      if (!request.headers.has('Idempotency-Key'))
        request.headers.set('Idempotency-Key', crypto.randomUUID());
      keyed.add(request);
      return request;
    },
  };
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    ...options,
    baseUrl,
    headers: mergeHeaders(inBrowser() ? {} : { 'User-Agent': USER_AGENT }, options.headers, {
      Authorization: `Bearer ${token}`,
    }),
    fetch: retryingFetch(fetch, { retry, timeoutMs, isKeyedWrite: (request) => keyed.has(request) }),
  });
  client.use(idempotencyKeys);
  const call = client.request as unknown as AnyCall;
  const operations = Object.fromEntries(
    Object.entries(OPERATIONS).map(([name, { method, path }]) => [
      name,
      (init?: unknown) => call(method, path, init),
    ]),
  ) as unknown as OperationMethods;
  return Object.assign(client, operations, {
    paginate: <Path extends ListPath>(
      path: Path,
      ...init: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
    ) => paginate(client, path, ...init),
    events: (feed?: EventFeedOptions) => eventFeed(client, feed),
    importOrders: (file: string | Uint8Array | Blob, options?: ImportOrdersOptions) =>
      importOrders(client, file, options),
  });
}
