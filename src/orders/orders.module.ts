import { Module } from '@nestjs/common';
import { declareApiTag } from '../platform/openapi/document-contributions';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../outbox/events.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { CompaniesModule } from '../companies/companies.module';
import { ProductsModule } from '../products/products.module';
import { ExportSlots } from './application/export-slots';
import { LogisticsService } from './application/logistics.service';
import { OrderFacts } from './application/order-facts';
import { OrderLookupService } from './application/order-lookup.service';
import { OrderMetrics } from './application/order-metrics';
import { OrderValidator } from './application/order-validator';
import { OrdersExportService } from './application/orders-export.service';
import { OrdersService } from './application/orders.service';
import { SandboxService } from './application/sandbox.service';
import { OrdersExportController } from './http/orders-export.controller';
import { OrdersController } from './http/orders.controller';
import { OrderFactsRepository } from './persistence/order-facts.repository';
import { OrderLookupRepository } from './persistence/order-lookup.repository';
import { OrdersExportRepository } from './persistence/orders-export.repository';
import { OrdersRepository } from './persistence/orders.repository';
import { OwnsEntities } from '../platform/database/module-entities';
import { DeliveryError, DetailedStatus, Tracking } from './order-children.entities';
import { Order } from './order.entity';

/**
 * The order aggregate: the only module that writes orders, trackings, detailed_statuses and delivery_errors.
 * The logistics and sandbox surfaces are thin modules beside it (logistics.module.ts, sandbox.module.ts).
 */
@OwnsEntities(Order, Tracking, DetailedStatus, DeliveryError)
@Module({
  imports: [AuditModule, EventsModule, IdempotencyModule, CompaniesModule, ProductsModule],
  controllers: [OrdersController, OrdersExportController],
  providers: [
    OrdersRepository,
    OrderFactsRepository,
    OrdersExportRepository,
    OrderValidator,
    OrdersService,
    OrderFacts,
    LogisticsService,
    SandboxService,
    OrdersExportService,
    ExportSlots,
    OrderMetrics,
    OrderLookupRepository,
    OrderLookupService,
  ],
  exports: [OrdersService, LogisticsService, SandboxService, OrderLookupService],
})
export class OrdersModule {
  constructor() {
    declareApiTag({
      name: 'orders',
      description: 'Partner API: place, read, list, update, cancel and comment on your company’s orders.',
      rank: 10,
    });
  }
}
