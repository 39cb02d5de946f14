/** What Express leaves on a request that routing or a mounted middleware served. */
export interface RoutedRequest {
  route?: { path?: string };
  /** The path a middleware was mounted at (`/console` for the console's files) while it serves the request. */
  baseUrl?: string;
}

/**
 * The route template of a request for logs and metrics, never the path itself (a label per file or id would
 * grow without bound): its route (`/api/v2/order/:id`), or for a static file the mount it was served from
 * (`/console/*`). Undefined for a request nothing served.
 */
export function routeTemplate(request: RoutedRequest): string | undefined {
  if (request.route?.path) return request.route.path;
  return request.baseUrl ? `${request.baseUrl}/*` : undefined;
}
