import { Module } from '@nestjs/common';
import { OwnsEntities } from '../platform/database/module-entities';
import { EventsModule } from '../outbox/events.module';
import { OrdersModule } from '../orders/orders.module';
import { AdminImportsController } from './http/admin-imports.controller';
import { ImportsController } from './http/imports.controller';
import { ImportUploadsCleanup } from './import-uploads-cleanup';
import { ImportWorker } from './import-worker';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';
import { ImportLine, OrderImport } from './order-import.entities';
import './import-events';

/**
 * Bulk imports (CONTRACT §4.11): the upload, stored line by line, and the worker that places each line through
 * the orders module's own placement (OrdersService.placeIn).
 */
@OwnsEntities(OrderImport, ImportLine)
@Module({
  imports: [OrdersModule, EventsModule],
  controllers: [ImportsController, AdminImportsController],
  providers: [ImportsRepository, ImportsService, ImportWorker, ImportUploadsCleanup],
  exports: [ImportsService, ImportWorker],
})
export class ImportsModule {}
