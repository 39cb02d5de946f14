import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminOrdersModule } from './admin-orders/admin-orders.module';
import { ImportsModule } from './imports/imports.module';
import { RequestLogModule } from './request-log/request-log.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ApiExceptionFilter } from './platform/http/exception.filter';
import { CompaniesModule } from './companies/companies.module';
import { FoundationModule, type FoundationSettings } from './platform/foundation.module';
import { HealthModule } from './platform/health/health.module';
import { JobsModule } from './platform/jobs/jobs.module';
import { TokensModule } from './tokens/tokens.module';
import { CommentsModule } from './comments/comments.module';
import { OrdersModule } from './orders/orders.module';
import { ProductsModule } from './products/products.module';
import { LogisticsModule } from './orders/logistics.module';
import { EventsModule } from './outbox/events.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { MetricsModule } from './platform/metrics/metrics.module';
import { SandboxModule } from './orders/sandbox.module';
import { declareApiTag } from './platform/openapi/document-contributions';
import { entitiesOf } from './platform/database/module-entities';

/** The admin API's tag: a surface several modules share (companies, tokens, products, webhooks, audit). */
const ADMIN_TAG = {
  name: 'admin',
  description: 'Admin API: companies, tokens, products, webhooks and the audit trail.',
  rank: 50,
};

/** The service's modules: each names the entities it owns (@OwnsEntities); the DataSource maps theirs. */
export const FEATURES = [
  MetricsModule,
  AuthModule,
  HealthModule,
  CompaniesModule,
  TokensModule,
  AuditModule,
  ProductsModule,
  OrdersModule,
  CommentsModule,
  LogisticsModule,
  EventsModule,
  WebhooksModule,
  SandboxModule,
  // Before AdminOrdersModule: its GET admin/orders/{id} would take admin/orders/imports for an order id.
  ImportsModule,
  AdminOrdersModule,
  RequestLogModule,
];

@Module({})
export class AppModule {
  constructor() {
    declareApiTag(ADMIN_TAG);
  }

  static forRoot(settings: Omit<FoundationSettings, 'entities'>): DynamicModule {
    return {
      module: AppModule,
      imports: [
        FoundationModule.forRoot({ ...settings, entities: entitiesOf(FEATURES) }),
        JobsModule,
        ...FEATURES,
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
