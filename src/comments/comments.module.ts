import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../outbox/events.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OrdersModule } from '../orders/orders.module';
import { contributeToOrderView } from '../orders/persistence/order-view';
import { CommentsController } from './comments.controller';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';
import { ORDER_COMMENTS_FIELD } from './order-view.comments';
import { OwnsEntities } from '../platform/database/module-entities';
import { OrderComment } from './order-comment.entity';

@OwnsEntities(OrderComment)
@Module({
  imports: [AuditModule, EventsModule, IdempotencyModule, OrdersModule],
  controllers: [CommentsController],
  providers: [CommentsRepository, CommentsService],
})
export class CommentsModule {
  /** The order object carries its comments: this module's fragment of the order view. */
  constructor() {
    contributeToOrderView('comments', ORDER_COMMENTS_FIELD);
  }
}
