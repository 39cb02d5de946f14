import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesModule } from '../companies/companies.module';
import { contributeToDocument, declareApiTag } from '../platform/openapi/document-contributions';
import { DeliveryQueue } from './delivery-queue';
import { documentWebhooks } from './webhook-document';
import { WebhookDispatcher } from './webhook-dispatcher';
import { PartnerWebhooksController } from './partner-webhooks.controller';
import { WebhookLogPurge } from './webhook-log-purge';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';

@OwnsEntities(WebhookEndpoint, WebhookDelivery, WebhookAttempt)
@Module({
  imports: [AuditModule, CompaniesModule],
  controllers: [WebhooksController, PartnerWebhooksController],
  providers: [WebhooksRepository, DeliveryQueue, WebhooksService, WebhookDispatcher, WebhookLogPurge],
  exports: [WebhooksService],
})
export class WebhooksModule {
  constructor() {
    declareApiTag({
      name: 'webhooks',
      description:
        'Webhooks: the events this service POSTs to the endpoints you or an administrator registered, and ' +
        "the routes that manage your company's endpoints.",
      rank: 70,
    });
    contributeToDocument(documentWebhooks);
  }
}
