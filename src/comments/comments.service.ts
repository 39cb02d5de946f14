import { Injectable } from '@nestjs/common';
import { toDto } from '../kernel/known-fields';
import { validateSync } from 'class-validator';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import { toFieldErrors } from '../kernel/validation';
import { UnitOfWork } from '../platform/database/unit-of-work';
import { EventsService } from '../outbox/events.service';
import { orderEvents } from '../orders/events/order-events';
import { OrdersService } from '../orders/application/orders.service';
import { CommentOrderNotFoundError, CommentValidationError } from './comments.errors';
import { CommentsRepository } from './comments.repository';
import { CommentDto } from './dto/comment.dto';

@Injectable()
export class CommentsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly comments: CommentsRepository,
    private readonly orders: OrdersService,
    private readonly audit: AuditService,
    private readonly events: EventsService,
  ) {}

  /** Adds the user's comment to an order of the company, or replaces the one the user wrote before. */
  async comment(actor: Actor, companyId: number, orderId: number, body: unknown): Promise<void> {
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
    const input = toDto(CommentDto, fields);
    const errors = toFieldErrors(validateSync(input, { stopAtFirstError: true, whitelist: true }));
    await this.unitOfWork.transaction(async (manager) => {
      const order = await this.orders.lockOfCompany(manager, companyId, orderId);
      if (!order) throw new CommentOrderNotFoundError();
      if (Object.keys(errors).length > 0) throw new CommentValidationError(errors);
      const added = await this.comments.upsert(manager, orderId, actor.userName, input.partner_comment);
      await this.orders.touch(manager, orderId);
      await this.audit.record(manager, actor, {
        action: added ? 'order.comment_added' : 'order.comment_replaced',
        targetType: 'order',
        targetId: orderId,
        companyId,
        changedFields: ['partner_comment'],
      });
      await this.events.publish(manager, companyId, orderId, [
        orderEvents.comment(order, actor.userName, !added),
      ]);
    });
  }
}
