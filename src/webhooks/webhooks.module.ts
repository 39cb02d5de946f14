import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesModule } from '../companies/companies.module';
import { EventsModule } from '../outbox/events.module';
import { contributeToDocument } from '../platform/openapi/document-contributions';
import { documentWebhooks } from './webhook-document';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [AuditModule, CompaniesModule, EventsModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDispatcher],
})
export class WebhooksModule {
  constructor() {
    contributeToDocument(documentWebhooks);
  }
}
