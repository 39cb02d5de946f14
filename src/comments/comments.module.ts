import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../outbox/events.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OrdersModule } from '../orders/orders.module';
import { CommentsController } from './comments.controller';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';

@Module({
  imports: [AuditModule, EventsModule, IdempotencyModule, OrdersModule],
  controllers: [CommentsController],
  providers: [CommentsRepository, CommentsService],
})
export class CommentsModule {}
