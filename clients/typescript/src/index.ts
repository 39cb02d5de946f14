export {
  createRestaurantOrdersClient,
  type RestaurantOrdersClient,
  type RestaurantOrdersClientOptions,
  type Schema,
} from './client.js';
export { type ErrorBody, RestaurantOrdersError, type SuccessData, unwrap } from './errors.js';
export type { ListInit, ListItem, ListPath } from './pages.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
export {
  constructWebhookEvent,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
