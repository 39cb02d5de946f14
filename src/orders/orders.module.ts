import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../outbox/events.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { CompaniesModule } from '../companies/companies.module';
import { ProductsModule } from '../products/products.module';
import { ExportSlots } from './export/export-slots';
import { OrdersExportController } from './export/orders-export.controller';
import { OrdersExportRepository } from './export/orders-export.repository';
import { OrdersExportService } from './export/orders-export.service';
import { OrderValidator } from './order-validator';
import { OrdersController } from './orders.controller';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';

@Module({
  imports: [AuditModule, EventsModule, IdempotencyModule, CompaniesModule, ProductsModule],
  controllers: [OrdersController, OrdersExportController],
  providers: [
    OrdersRepository,
    OrderValidator,
    OrdersService,
    OrdersExportRepository,
    OrdersExportService,
    ExportSlots,
  ],
  exports: [OrdersRepository, OrdersService],
})
export class OrdersModule {}
