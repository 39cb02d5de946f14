import createClient, { type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

/** A named schema of the document: `Schema<'OrderResponse'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * A typed client of the Restaurant Orders API: every path, parameter, body and response of the OpenAPI
 * document, checked by the compiler. `baseUrl` is the service origin (`https://api.example.com`); `token` a
 * bearer token of any role (its role decides which routes answer).
 */
export function createRestaurantOrdersClient(baseUrl: string, token: string, options: ClientOptions = {}) {
  return createClient<paths>({
    ...options,
    baseUrl,
    headers: { ...options.headers, Authorization: `Bearer ${token}` },
  });
}

export type RestaurantOrdersClient = ReturnType<typeof createRestaurantOrdersClient>;
