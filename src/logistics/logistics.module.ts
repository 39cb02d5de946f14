import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../events/events.module';
import { OrdersModule } from '../orders/orders.module';
import { LogisticsController } from './logistics.controller';
import { LogisticsRepository } from './logistics.repository';
import { LogisticsService } from './logistics.service';

@Module({
  imports: [AuditModule, EventsModule, OrdersModule],
  controllers: [LogisticsController],
  providers: [LogisticsRepository, LogisticsService],
})
export class LogisticsModule {}
