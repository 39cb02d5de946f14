import { AuditEvent } from './audit/audit-event.entity';
import { Company } from './companies/company.entity';
import { OrderComment } from './comments/order-comment.entity';
import { DeliveryError, DetailedStatus, Tracking } from './orders/order-children.entities';
import { Order } from './orders/order.entity';
import { ProductVariation } from './products/product-variation.entity';
import { Product } from './products/product.entity';
import { OutboxEvent } from './outbox/outbox-event.entity';
import { IdempotencyKey } from './idempotency/idempotency-key.entity';
import { ApiToken } from './tokens/api-token.entity';
import { WebhookAttempt, WebhookDelivery } from './webhooks/webhook-delivery.entity';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity';

/** Every TypeORM entity of the service, listed explicitly so the app, the CLI and migrations agree. */
export const ENTITIES: Function[] = [
  Company,
  ApiToken,
  AuditEvent,
  Product,
  ProductVariation,
  Order,
  Tracking,
  DetailedStatus,
  DeliveryError,
  OrderComment,
  IdempotencyKey,
  OutboxEvent,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
];
