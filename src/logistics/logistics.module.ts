import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../outbox/events.module';
import { OrdersModule } from '../orders/orders.module';
import { LogisticsController } from './logistics.controller';
import { LogisticsRepository } from './logistics.repository';
import { LogisticsService } from './logistics.service';
import { OrderFacts } from './order-facts';

@Module({
  imports: [AuditModule, EventsModule, OrdersModule],
  controllers: [LogisticsController],
  providers: [LogisticsRepository, OrderFacts, LogisticsService],
  exports: [OrderFacts, LogisticsRepository],
})
export class LogisticsModule {}
