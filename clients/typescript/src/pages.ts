import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import { RestaurantOrdersError } from './errors.js';
import type { components, paths } from './schema.js';

type PageLinks = components['schemas']['PageLinks'];
type PageMeta = components['schemas']['PageMeta'];

/** The JSON body of a path's successful GET. */
type GetBody<Path extends keyof paths> = paths[Path] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;

/** The paths whose GET answers a page (`{data, links, meta}`): the lists of orders, products, tokens, ... */
export type ListPath = {
  [Path in keyof paths]: GetBody<Path> extends { data: unknown[]; links: PageLinks; meta: PageMeta }
    ? Path
    : never;
}[keyof paths];

/** One element of a list's `data`: `ListItem<'/api/v2/order'>` is an order. */
export type ListItem<Path extends ListPath> = GetBody<Path> extends { data: (infer Item)[] } ? Item : never;

/** A list's parameters: the filters, and `page` to start from (default 1). */
export type ListInit<Path extends ListPath> = MaybeOptionalInit<paths[Path], 'get'>;

interface Page {
  data: unknown[];
  links: PageLinks;
  meta: PageMeta;
}

/**
 * Every element of a list, page after page, as long as the list has a next page: the filters stay those of
 * the first request, and each page is one request (with the client's retries). A page that fails throws a
 * RestaurantOrdersError.
 */
export async function* paginate<Path extends ListPath>(
  client: Client<paths>,
  path: Path,
  ...[init]: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
): AsyncGenerator<ListItem<Path>, void, undefined> {
  // openapi-fetch types a call for one literal path; over a generic one it cannot tell the page's shape,
  // which ListPath guarantees.
  const get = client.GET as unknown as (
    path: string,
    init: { params: { query?: Record<string, unknown> } },
  ) => Promise<{ data?: Page; error?: unknown; response: Response }>;
  const params: { query?: Record<string, unknown> } = init?.params ?? {};
  let page = Number(params.query?.page ?? 1);
  for (;;) {
    const { data, error, response } = await get(path, {
      ...init,
      params: { ...params, query: { ...params.query, page } },
    });
    if (!response.ok || data === undefined) throw new RestaurantOrdersError(response, error);
    for (const item of data.data) yield item as ListItem<Path>;
    if (data.links.next === null) return;
    page = data.meta.current_page + 1;
  }
}
