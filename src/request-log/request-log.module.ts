import { Module } from '@nestjs/common';
import { OrdersModule } from '../orders/orders.module';
import { EventsModule } from '../outbox/events.module';
import { OwnsEntities } from '../platform/database/module-entities';
import { declareApiTag } from '../platform/openapi/document-contributions';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminRequestLogController } from './admin-request-log.controller';
import { RequestLogEntry } from './request-log-entry.entity';
import { RequestLogPartitions } from './request-log-partitions';
import { RequestLogController } from './request-log.controller';
import { RequestLogRepository } from './request-log.repository';
import { RequestLogService } from './request-log.service';
import { RequestLogWriter } from './request-log.writer';

/**
 * The request log (CONTRACT §4.12): owns `request_log`, written by RequestLogWriter off the requests' path,
 * kept 14 days by RequestLogPartitions, read by partners (their company's) and admins (every company's). It reads
 * the orders, outbox and webhooks modules for what a request caused, which is why it stands above them.
 */
@OwnsEntities(RequestLogEntry)
@Module({
  imports: [OrdersModule, EventsModule, WebhooksModule],
  controllers: [RequestLogController, AdminRequestLogController],
  providers: [RequestLogRepository, RequestLogWriter, RequestLogPartitions, RequestLogService],
  exports: [RequestLogWriter],
})
export class RequestLogModule {
  constructor() {
    declareApiTag({
      name: 'requests',
      description:
        "Your request log: every request made with your company's tokens in the last 14 days, what it was " +
        'answered and what it caused, to debug an integration by its X-Request-Id.',
      rank: 75,
    });
  }
}
