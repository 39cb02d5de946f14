import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesModule } from '../companies/companies.module';
import { OrdersModule } from '../orders/orders.module';
import { EventsModule } from '../outbox/events.module';
import { TokensModule } from '../tokens/tokens.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AdminOrdersController } from './admin-orders.controller';
import { AdminOrdersService } from './admin-orders.service';

/**
 * The administrator's read model of orders (CONTRACT §6): it owns no table and writes nothing; it composes the
 * reads of the orders, companies, audit, tokens, outbox and webhooks modules, which is why it stands above them.
 */
@Module({
  imports: [OrdersModule, CompaniesModule, AuditModule, TokensModule, EventsModule, WebhooksModule],
  controllers: [AdminOrdersController],
  providers: [AdminOrdersService],
})
export class AdminOrdersModule {}
