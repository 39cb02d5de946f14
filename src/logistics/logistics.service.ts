import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../audit/actor';
import { AuditService } from '../audit/audit.service';
import { ApiFormats } from '../common/api-formats';
import { fieldError } from '../common/domain-error';
import { UnitOfWork } from '../database/unit-of-work';
import { EventsService } from '../events/events.service';
import { type EventDraft, type OrderAfterChange, orderEvents } from '../events/order-events';
import {
  deliveryErrorResponse,
  detailedStatusResponse,
  trackingResponse,
} from '../orders/dto/order.response';
import { nextState, type OrderState, WITH_LOGISTICS } from '../orders/order-state';
import type { Order } from '../orders/order.entity';
import { OrderNotFoundError, OrderStateConflictError } from '../orders/orders.errors';
import { OrdersRepository } from '../orders/orders.repository';
import { assertUnchanged, type OrderWithChildren, OrdersService } from '../orders/orders.service';
import type {
  DeliveryErrorDto,
  DetailedStatusDto,
  LogisticsPatchDto,
  TrackingDto,
} from './dto/logistics.dto';
import { LogisticsRepository } from './logistics.repository';
import { characterCount } from '../common/characters';
import { isStorableText } from '../common/required-text.validator';

/** What one logistics write did, for the order row and the audit trail. */
interface Recorded {
  action: string;
  changedFields: string[];
  /** The state the fact moves the order to (the same state when it does not move it). */
  state: OrderState;
  /** Order columns the fact sets (serial number, completion date). */
  values?: Partial<Order>;
  /** The event of the fact itself; a state change adds its own order.state_changed. */
  event?: (after: OrderAfterChange) => EventDraft;
}

/**
 * The fulfilment partner's side (CONTRACT §7). Every write locks the order, checks If-Match, checks the
 * state allows it, records the fact, derives the state through the state machine (never backwards) and
 * writes the audit row, in one transaction.
 */
@Injectable()
export class LogisticsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly orders: OrdersRepository,
    private readonly ordersService: OrdersService,
    private readonly facts: LogisticsRepository,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly formats: ApiFormats,
  ) {}

  queue(state: OrderState, offset: number, limit: number): Promise<OrderWithChildren[]> {
    return this.ordersService.queue(state, offset, limit);
  }

  /** PLACED → SENT_TO_LOGISTICS. Already with logistics: a no-op. A test or cancelled order: 409. */
  async markSent(actor: Actor, orderId: number, expectedVersion?: number): Promise<OrderWithChildren> {
    await this.unitOfWork.transaction(async (manager) => {
      const order = await this.lock(manager, orderId, expectedVersion);
      if (WITH_LOGISTICS.includes(order.state)) return;
      if (order.state === 'TEST')
        throw new OrderStateConflictError('A test order is never sent to logistics.');
      if (order.state === 'CANCELLED')
        throw new OrderStateConflictError('The order has been cancelled: it cannot be sent to logistics.');
      await this.apply(manager, actor, order, {
        action: 'order.sent_to_logistics',
        changedFields: [],
        state: 'SENT_TO_LOGISTICS',
      });
    });
    return this.ordersService.getById(orderId);
  }

  /** Creates or replaces one tracking; a delivery date delivers the order, else a dispatch date dispatches it. */
  async putTracking(
    actor: Actor,
    orderId: number,
    trackingNumber: string,
    input: TrackingDto,
    expectedVersion?: number,
  ): Promise<{ created: boolean; order: OrderWithChildren }> {
    if (characterCount(trackingNumber) > 255)
      throw fieldError('tracking_number', 'The tracking number may not be greater than 255 characters.');
    if (!isStorableText(trackingNumber))
      throw fieldError(
        'tracking_number',
        'The tracking number may not contain NUL characters or unpaired surrogates.',
      );
    let created = false;
    await this.withLogistics(actor, orderId, expectedVersion, async (manager, order) => {
      const tracking = {
        status: input.status ?? null,
        statusDate: this.at(input.status_date),
        dispatchDate: this.at(input.dispatch_date),
        deliveryDate: this.at(input.delivery_date),
        trackingLink: input.tracking_link ?? null,
      };
      created = await this.facts.upsertTracking(manager, order, trackingNumber, tracking);
      const target = tracking.deliveryDate ? 'DELIVERED' : tracking.dispatchDate ? 'DISPATCHED' : order.state;
      const replaced = !created;
      return {
        action: created ? 'order.tracking_added' : 'order.tracking_replaced',
        changedFields: ['trackings'],
        state: nextState(order.state, target) ?? order.state,
        event: (after) =>
          orderEvents.tracking(
            after,
            trackingResponse({ ...tracking, trackingNumber }, this.formats),
            replaced,
          ),
      };
    });
    return { created, order: await this.ordersService.getById(orderId) };
  }

  addDetailedStatus(
    actor: Actor,
    orderId: number,
    input: DetailedStatusDto,
    expectedVersion?: number,
  ): Promise<OrderWithChildren> {
    return this.withLogistics(actor, orderId, expectedVersion, async (manager, order) => {
      const status = {
        orderId,
        status: input.status,
        statusDate: this.at(input.status_date)!,
        location: input.location ?? null,
        description: input.description ?? null,
        trackingNumber: input.tracking_number ?? null,
        trackingLink: input.tracking_link ?? null,
      };
      await this.facts.insertDetailedStatus(manager, status);
      return {
        action: 'order.detailed_status_added',
        changedFields: ['detailed_status'],
        state: order.state,
        event: (after) => orderEvents.detailedStatus(after, detailedStatusResponse(status, this.formats)),
      };
    });
  }

  /** Comment and Information are recorded; Cancel also cancels an order that is not delivered (409 after). */
  addDeliveryError(
    actor: Actor,
    orderId: number,
    input: DeliveryErrorDto,
    expectedVersion?: number,
  ): Promise<OrderWithChildren> {
    return this.withLogistics(actor, orderId, expectedVersion, async (manager, order) => {
      let state = order.state;
      if (input.resolution === 'Cancel') {
        state =
          nextState(order.state, 'CANCELLED') ??
          this.refuse(`The order is ${order.state}: a delivery error can no longer cancel it.`);
      }
      const deliveryError = {
        orderId,
        status: input.status,
        date: this.at(input.date)!,
        resolution: input.resolution,
        comment: input.comment ?? null,
      };
      await this.facts.insertDeliveryError(manager, deliveryError);
      return {
        action: 'order.delivery_error_added',
        changedFields: ['delivery_errors'],
        state,
        event: (after) =>
          orderEvents.deliveryError(after, deliveryErrorResponse(deliveryError, this.formats)),
      };
    });
  }

  /** The serial number, and the completion date, which moves a DELIVERED order to COMPLETED (409 before). */
  patch(
    actor: Actor,
    orderId: number,
    input: LogisticsPatchDto,
    expectedVersion?: number,
  ): Promise<OrderWithChildren> {
    const given = (['serial_number', 'final_completion_date'] as const).filter(
      (field) => input[field] !== undefined,
    );
    if (given.length === 0) throw fieldError('body', 'Give serial_number, final_completion_date or both.');
    return this.withLogistics(actor, orderId, expectedVersion, (_manager, order) => {
      const values: Partial<Order> = {};
      let state = order.state;
      if (input.serial_number !== undefined) values.serialNumber = input.serial_number;
      if (input.final_completion_date !== undefined) {
        values.finalCompletionDate = this.at(input.final_completion_date);
        if (values.finalCompletionDate) {
          state =
            nextState(order.state, 'COMPLETED') ??
            this.refuse(`The order is ${order.state}: it can be completed only once delivered.`);
        }
      }
      return {
        action: 'order.logistics_updated',
        changedFields: [...given],
        state,
        values,
        event: (after) => orderEvents.updated(after, [...given]),
      };
    });
  }

  private async withLogistics(
    actor: Actor,
    orderId: number,
    expectedVersion: number | undefined,
    record: (manager: EntityManager, order: Order) => Promise<Recorded> | Recorded,
  ): Promise<OrderWithChildren> {
    await this.unitOfWork.transaction(async (manager) => {
      const order = await this.lock(manager, orderId, expectedVersion);
      if (!WITH_LOGISTICS.includes(order.state)) {
        this.refuse(
          order.state === 'TEST'
            ? 'A test order is never processed by logistics.'
            : `The order is ${order.state}: logistics can record data only once it has been sent to logistics.`,
        );
      }
      await this.apply(manager, actor, order, await record(manager, order));
    });
    return this.ordersService.getById(orderId);
  }

  private async lock(
    manager: EntityManager,
    orderId: number,
    expectedVersion: number | undefined,
  ): Promise<Order> {
    const order = await this.orders.lockById(manager, orderId);
    if (!order) throw new OrderNotFoundError();
    assertUnchanged(order, expectedVersion);
    return order;
  }

  /** Writes the order row (state, values, updated_at, version), the audit row and the events. */
  private async apply(manager: EntityManager, actor: Actor, order: Order, recorded: Recorded): Promise<void> {
    const stateChanged = recorded.state !== order.state;
    const after = { ...order, state: recorded.state };
    await this.orders.update(manager, order.id, {
      ...recorded.values,
      ...(stateChanged ? { state: recorded.state } : {}),
    });
    await this.audit.record(manager, actor, {
      action: recorded.action,
      targetType: 'order',
      targetId: order.id,
      companyId: order.companyId,
      changedFields: stateChanged ? [...recorded.changedFields, 'state'] : recorded.changedFields,
    });
    await this.events.publish(manager, order.companyId, order.id, [
      ...(recorded.event ? [recorded.event(after)] : []),
      ...(stateChanged ? [orderEvents.stateChanged(after, order.state)] : []),
    ]);
  }

  private at(value: string | null | undefined): Date | null {
    return value ? this.formats.parseDateTime(value) : null;
  }

  private refuse(message: string): never {
    throw new OrderStateConflictError(message);
  }
}
