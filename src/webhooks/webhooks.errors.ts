import { DomainError } from '../common/domain-error';

export class WebhookNotFoundError extends DomainError {
  constructor() {
    super('WEBHOOK_NOT_FOUND', 'Webhook not found.');
  }
}
