export {
  createRestaurantOrdersClient,
  type RestaurantOrdersClient,
  type RestaurantOrdersClientOptions,
  type Schema,
  USER_AGENT,
} from './client.js';
export {
  type ErrorBody,
  RestaurantOrdersError,
  type RestaurantOrdersErrorKind,
  type SuccessData,
  unwrap,
} from './errors.js';
export type { EventFeedOptions } from './events.js';
export type { ImportOrdersOptions, ImportResult, OrderImport } from './imports.js';
export { OPERATIONS, type OperationMethods } from './operations.js';
export type { ListInit, ListItem, ListPath } from './pages.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export type { components, operations, paths } from './schema.js';
export { SDK_VERSION } from './version.js';
export {
  constructWebhookEvent,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
