import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../kernel/access/actor';
import { AuditService } from '../../audit/audit.service';
import { ApiFormats } from '../../platform/formats/api-formats';
import { EventsService } from '../../outbox/events.service';
import { WritePositions } from '../../platform/database/write-positions';
import { type EventDraft, type OrderAfterChange, orderEvents } from '../events/order-events';
import type { DeliveryError, DetailedStatus } from '../order-children.entities';
import type { OrderState } from '../order-state';
import type { Order } from '../order.entity';
import { OrderMovedError } from '../orders.errors';
import { deliveryErrorResponse, detailedStatusResponse, trackingResponse } from '../persistence/order-view';
import { stateAfterCompletion, stateAfterDeliveryError, stateAfterTracking } from '../domain/logistics-facts';
import type { OrderResponse } from '../dto/order.response';
import type { OrderJsonRow } from '../persistence/order-json';
import { OrdersRepository } from '../persistence/orders.repository';
import { OrderFactsRepository, type TrackingValues } from '../persistence/order-facts.repository';

export type DetailedStatusFact = Omit<DetailedStatus, 'id' | 'createdAt' | 'order' | 'orderId'>;
export type DeliveryErrorFact = Pick<DeliveryError, 'status' | 'date' | 'resolution' | 'comment'>;
/** The order columns logistics sets; only the ones given change. */
export type CompletionFact = Partial<Pick<Order, 'serialNumber' | 'finalCompletionDate'>>;

const COMPLETION_FIELDS = { serialNumber: 'serial_number', finalCompletionDate: 'final_completion_date' };

/** The order once a fact is recorded: its row's values, and its response object as the fact's statement built it. */
export interface FactRecorded {
  order: Order;
  view: OrderJsonRow<OrderResponse>;
}

/** What one fact did, for the order row and the audit trail. */
interface Recorded {
  action: string;
  changedFields: string[];
  /** The state the fact moves the order to (the same state when it does not move it). */
  state: OrderState;
  /** Order columns the fact sets (serial number, completion date). */
  values?: CompletionFact;
  /** The event of the fact itself; a state change adds its own order.state_changed. */
  event?: (after: OrderAfterChange) => EventDraft;
}

/**
 * The facts of the fulfilment (CONTRACT §3, §7): each records itself on an order the caller has locked, derives
 * the state through the state machine (never backwards), and writes the order row, the audit row and the
 * events in the caller's transaction. Who may record which fact on which order is the caller's rule: the
 * logistics API for real orders, the sandbox for test orders. Each returns the order as it now stands, as row
 * values and as its response object (no read after the write).
 */
@Injectable()
export class OrderFacts {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly facts: OrderFactsRepository,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly formats: ApiFormats,
    private readonly positions: WritePositions,
  ) {}

  /** The order is with logistics now (SENT_TO_LOGISTICS). */
  markSent(manager: EntityManager, actor: Actor, order: Order): Promise<FactRecorded> {
    return this.apply(manager, actor, order, {
      action: 'order.sent_to_logistics',
      changedFields: [],
      state: 'SENT_TO_LOGISTICS',
    });
  }

  /** Creates or replaces one tracking; a delivery date delivers the order, else a dispatch date dispatches it. */
  async putTracking(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    trackingNumber: string,
    tracking: TrackingValues,
  ): Promise<FactRecorded & { created: boolean }> {
    const created = await this.facts.upsertTracking(manager, order, trackingNumber, tracking);
    const recorded = await this.apply(manager, actor, order, {
      action: created ? 'order.tracking_added' : 'order.tracking_replaced',
      changedFields: ['trackings'],
      state: stateAfterTracking(order.state, tracking),
      event: (changed) =>
        orderEvents.tracking(
          changed,
          trackingResponse({ ...tracking, trackingNumber }, this.formats),
          !created,
        ),
    });
    return { created, ...recorded };
  }

  async addDetailedStatus(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    input: DetailedStatusFact,
  ): Promise<FactRecorded> {
    const status = { ...input, orderId: order.id };
    await this.facts.insertDetailedStatus(manager, status);
    return this.apply(manager, actor, order, {
      action: 'order.detailed_status_added',
      changedFields: ['detailed_status'],
      state: order.state,
      event: (after) => orderEvents.detailedStatus(after, detailedStatusResponse(status, this.formats)),
    });
  }

  /** Comment and Information are recorded; Cancel also cancels an order that is not delivered (409 after). */
  async addDeliveryError(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    input: DeliveryErrorFact,
  ): Promise<FactRecorded> {
    const state = stateAfterDeliveryError(order.state, input.resolution);
    const deliveryError = { ...input, orderId: order.id };
    await this.facts.insertDeliveryError(manager, deliveryError);
    return this.apply(manager, actor, order, {
      action: 'order.delivery_error_added',
      changedFields: ['delivery_errors'],
      state,
      event: (after) => orderEvents.deliveryError(after, deliveryErrorResponse(deliveryError, this.formats)),
    });
  }

  /** The serial number, and the completion date, which moves a DELIVERED order to COMPLETED (409 before). */
  complete(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    values: CompletionFact,
  ): Promise<FactRecorded> {
    const given = (Object.keys(COMPLETION_FIELDS) as (keyof CompletionFact)[])
      .filter((field) => values[field] !== undefined)
      .map((field) => COMPLETION_FIELDS[field]);
    const state = stateAfterCompletion(order.state, Boolean(values.finalCompletionDate));
    return this.apply(manager, actor, order, {
      action: 'order.logistics_updated',
      changedFields: given,
      state,
      values,
      event: (after) => orderEvents.updated(after, given),
    });
  }

  /**
   * Writes the order row (state, values, updated_at, version), the audit row and the events in one statement,
   * which returns the order's response object; the company's write position is recorded once the transaction
   * commits, as AuditService.record would. The statement writes only if the order still has the version it
   * was read with (always so under its lock): else OrderMovedError, nothing written.
   */
  private async apply(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    recorded: Recorded,
  ): Promise<FactRecorded> {
    const stateChanged = recorded.state !== order.state;
    const after = { ...order, ...recorded.values, state: recorded.state, version: order.version + 1 };
    const drafts = [
      ...(recorded.event ? [recorded.event(after)] : []),
      ...(stateChanged ? [orderEvents.stateChanged(after, order.state)] : []),
    ];
    const view = await this.orders.recordFact(
      manager,
      order,
      { state: recorded.state, ...recorded.values },
      this.audit.row(actor, {
        action: recorded.action,
        targetType: 'order',
        companyId: order.companyId,
        changedFields: stateChanged ? [...recorded.changedFields, 'state'] : recorded.changedFields,
      }),
      this.events.draftColumns(drafts),
    );
    if (!view) throw new OrderMovedError();
    this.events.writtenBy(manager, drafts);
    await this.positions.changed(manager, order.companyId);
    return { order: after, view };
  }
}
