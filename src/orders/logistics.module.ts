import { Module } from '@nestjs/common';
import { declareApiTag } from '../platform/openapi/document-contributions';
import { LogisticsController } from './http/logistics.controller';
import { OrdersModule } from './orders.module';

/**
 * The fulfilment partner's surface of the order aggregate: its controller only, over OrdersModule's services.
 * A module of its own so its routes keep their place in the OpenAPI document (after comments).
 */
@Module({
  imports: [OrdersModule],
  controllers: [LogisticsController],
})
export class LogisticsModule {
  constructor() {
    declareApiTag({
      name: 'logistics',
      description: 'Logistics API: the work queue and the facts that move orders forward.',
      rank: 40,
    });
  }
}
