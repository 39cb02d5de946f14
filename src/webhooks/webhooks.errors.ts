import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({
  WEBHOOK_NOT_FOUND: { status: 404 },
  DELIVERY_NOT_FOUND: { status: 404 },
  DELIVERY_NOT_RETRYABLE: { status: 409 },
  WEBHOOK_LIMIT_REACHED: { status: 409 },
});

export class WebhookNotFoundError extends DomainError {
  constructor() {
    super('WEBHOOK_NOT_FOUND', 'Webhook not found.');
  }
}

export class DeliveryNotFoundError extends DomainError {
  constructor() {
    super('DELIVERY_NOT_FOUND', 'Delivery not found: this endpoint has no delivery with this id.');
  }
}

/** A delivery an admin may not send again by hand, and why (CONTRACT §6). */
export class DeliveryNotRetryableError extends DomainError {
  constructor(message: string) {
    super('DELIVERY_NOT_RETRYABLE', message);
  }
}

/** A company that has as many endpoints as it may: one must be deleted before another is registered. */
export class EndpointLimitError extends DomainError {
  constructor(limit: number) {
    super(
      'WEBHOOK_LIMIT_REACHED',
      `The company already has ${limit} webhook endpoints, the most it may have: delete one before registering another.`,
    );
  }
}
