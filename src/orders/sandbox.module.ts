import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SandboxController } from './http/sandbox.controller';
import { OrdersModule } from './orders.module';

/**
 * The partner's sandbox surface of the order aggregate: its controller only, over OrdersModule's services.
 * A module of its own so its route keeps its place in the OpenAPI document (last).
 */
@Module({
  imports: [IdempotencyModule, OrdersModule],
  controllers: [SandboxController],
})
export class SandboxModule {}
