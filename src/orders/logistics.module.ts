import { Module } from '@nestjs/common';
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
export class LogisticsModule {}
