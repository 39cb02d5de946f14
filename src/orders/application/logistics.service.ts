import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../kernel/access/actor';
import { ApiFormats } from '../../platform/formats/api-formats';
import { characterCount } from '../../kernel/characters';
import { fieldError } from '../../kernel/domain-error';
import { isStorableText } from '../../kernel/required-text.validator';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { type OrderState, WITH_LOGISTICS } from '../order-state';
import type { Order } from '../order.entity';
import { OrderMovedError, OrderNotFoundError, OrderStateConflictError } from '../orders.errors';
import { OrdersRepository } from '../persistence/orders.repository';
import type { LogisticsOrderResponse } from '../dto/logistics-order.response';
import type { OrderResponse } from '../dto/order.response';
import { type OrderJsonRow, withCredentials } from '../persistence/order-json';
import { assertUnchanged, OrdersService } from './orders.service';
import {
  type DeliveryErrorDto,
  type DetailedStatusDto,
  type LogisticsPatchDto,
  TRACKING_NUMBER,
  TRACKING_NUMBER_WHITESPACE,
  type TrackingDto,
} from '../http/dto/logistics.dto';
import { type FactRecorded, OrderFacts } from './order-facts';

/**
 * The fulfilment partner's side (CONTRACT §7). Every write checks If-Match and that the order is one logistics
 * may act on (never a test order), then records the fact through OrderFacts, which derives the state through
 * the state machine and writes the order row, the audit row and the events in one statement. A fact that also
 * writes a row of its own (a tracking, a detailed status, a delivery error) runs in a transaction with the order
 * locked; "sent" and the completion run on the order as read, their statement applying only to the version
 * read (see `unlocked`).
 */
@Injectable()
export class LogisticsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly orders: OrdersRepository,
    private readonly ordersService: OrdersService,
    private readonly facts: OrderFacts,
    private readonly formats: ApiFormats,
  ) {}

  async queue(state: OrderState, offset: number, limit: number): Promise<LogisticsOrderResponse[]> {
    const rows = await this.ordersService.queue(state, offset, limit);
    return rows.map((row) => this.toResponse(row));
  }

  /** PLACED → SENT_TO_LOGISTICS. Already with logistics: a no-op. A test or cancelled order: 409. */
  async markSent(actor: Actor, orderId: number, expectedVersion?: number): Promise<LogisticsOrderResponse> {
    const recorded = await this.unlocked(orderId, expectedVersion, (manager, order) => {
      if (order.test) throw new OrderStateConflictError('A test order is never sent to logistics.');
      if (WITH_LOGISTICS.includes(order.state)) return Promise.resolve(undefined);
      if (order.state === 'CANCELLED')
        throw new OrderStateConflictError('The order has been cancelled: it cannot be sent to logistics.');
      return this.facts.markSent(manager, actor, order);
    });
    return this.toResponse(recorded?.view ?? (await this.ordersService.getById(orderId)));
  }

  /** Creates or replaces one tracking; a delivery date delivers the order, else a dispatch date dispatches it. */
  async putTracking(
    actor: Actor,
    orderId: number,
    trackingNumber: string,
    input: TrackingDto,
    expectedVersion?: number,
  ): Promise<{ created: boolean; order: LogisticsOrderResponse }> {
    if (characterCount(trackingNumber) > 255)
      throw fieldError('tracking_number', 'The tracking number may not be greater than 255 characters.');
    if (!isStorableText(trackingNumber))
      throw fieldError(
        'tracking_number',
        'The tracking number may not contain NUL characters or unpaired surrogates.',
      );
    if (!TRACKING_NUMBER.test(trackingNumber))
      throw fieldError('tracking_number', TRACKING_NUMBER_WHITESPACE);
    let created = false;
    const order = await this.withLogistics(orderId, expectedVersion, async (manager, locked) => {
      const recorded = await this.facts.putTracking(manager, actor, locked, trackingNumber, {
        status: input.status ?? null,
        statusDate: this.at(input.status_date),
        dispatchDate: this.at(input.dispatch_date),
        deliveryDate: this.at(input.delivery_date),
        trackingLink: input.tracking_link ?? null,
      });
      created = recorded.created;
      return recorded;
    });
    return { created, order };
  }

  addDetailedStatus(
    actor: Actor,
    orderId: number,
    input: DetailedStatusDto,
    expectedVersion?: number,
  ): Promise<LogisticsOrderResponse> {
    return this.withLogistics(orderId, expectedVersion, (manager, order) =>
      this.facts.addDetailedStatus(manager, actor, order, {
        status: input.status,
        statusDate: this.at(input.status_date)!,
        location: input.location ?? null,
        description: input.description ?? null,
        trackingNumber: input.tracking_number ?? null,
        trackingLink: input.tracking_link ?? null,
      }),
    );
  }

  /** Comment and Information are recorded; Cancel also cancels an order that is not delivered (409 after). */
  addDeliveryError(
    actor: Actor,
    orderId: number,
    input: DeliveryErrorDto,
    expectedVersion?: number,
  ): Promise<LogisticsOrderResponse> {
    return this.withLogistics(orderId, expectedVersion, (manager, order) =>
      this.facts.addDeliveryError(manager, actor, order, {
        status: input.status,
        date: this.at(input.date)!,
        resolution: input.resolution,
        comment: input.comment ?? null,
      }),
    );
  }

  /** The serial number, and the completion date, which moves a DELIVERED order to COMPLETED (409 before). */
  async patch(
    actor: Actor,
    orderId: number,
    input: LogisticsPatchDto,
    expectedVersion?: number,
  ): Promise<LogisticsOrderResponse> {
    if (input.serial_number === undefined && input.final_completion_date === undefined)
      throw fieldError('body', 'Give serial_number, final_completion_date or both.');
    const values = {
      serialNumber: input.serial_number,
      finalCompletionDate:
        input.final_completion_date === undefined ? undefined : this.at(input.final_completion_date),
    };
    const { view } = await this.unlocked(orderId, expectedVersion, (manager, order) => {
      assertWithLogistics(order);
      return this.facts.complete(manager, actor, order, values);
    });
    return this.toResponse(view);
  }

  /**
   * Decides and records a fact that writes the order row alone (its one statement, atomic by itself) on the
   * order as read, with no transaction and no lock: the fact's statement writes only while the order still has
   * the version read, which is what the lock guarantees. When something changed the order in between, it is
   * decided again under the lock, so the fact and a concurrent update never both succeed and If-Match is checked
   * against the order written. Two round trips fewer than the lock's (START TRANSACTION, the locking read, COMMIT
   * against one read).
   */
  private async unlocked<T>(
    orderId: number,
    expectedVersion: number | undefined,
    record: (manager: EntityManager, order: Order) => Promise<T>,
  ): Promise<T> {
    const order = await this.orders.rowById(orderId);
    if (!order) throw new OrderNotFoundError();
    assertUnchanged(order, expectedVersion);
    try {
      return await this.unitOfWork.statement((manager) => record(manager, order));
    } catch (error) {
      if (!(error instanceof OrderMovedError)) throw error;
    }
    return this.unitOfWork.transaction(async (manager) =>
      record(manager, await this.lock(manager, orderId, expectedVersion)),
    );
  }

  /**
   * Locks the order and records a fact, if logistics may act on it: sent, and never a test order. The answer
   * is the order as the fact's statement returned it.
   */
  private async withLogistics(
    orderId: number,
    expectedVersion: number | undefined,
    record: (manager: EntityManager, order: Order) => Promise<FactRecorded>,
  ): Promise<LogisticsOrderResponse> {
    const { view } = await this.unitOfWork.transaction(async (manager) => {
      const order = await this.lock(manager, orderId, expectedVersion);
      assertWithLogistics(order);
      return record(manager, order);
    });
    return this.toResponse(view);
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

  /** The order as logistics sees it: the partner's order object (its version included), plus whose it is. */
  private toResponse(row: OrderJsonRow<OrderResponse>): LogisticsOrderResponse {
    return { ...withCredentials(row, this.formats), company_id: row.company_id };
  }

  private at(value: string | null | undefined): Date | null {
    return value ? this.formats.parseDateTime(value) : null;
  }
}

/** Logistics records data only on an order it has been sent, and never on a test order. */
function assertWithLogistics(order: Order): void {
  if (order.test) throw new OrderStateConflictError('A test order is never processed by logistics.');
  if (!WITH_LOGISTICS.includes(order.state)) {
    throw new OrderStateConflictError(
      `The order is ${order.state}: logistics can record data only once it has been sent to logistics.`,
    );
  }
}
