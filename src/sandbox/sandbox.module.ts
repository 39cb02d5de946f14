import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { LogisticsModule } from '../logistics/logistics.module';
import { OrdersModule } from '../orders/orders.module';
import { SandboxController } from './sandbox.controller';
import { SandboxService } from './sandbox.service';

@Module({
  imports: [IdempotencyModule, LogisticsModule, OrdersModule],
  controllers: [SandboxController],
  providers: [SandboxService],
})
export class SandboxModule {}
