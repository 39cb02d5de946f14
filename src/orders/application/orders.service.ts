import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../kernel/access/actor';
import { AuditService } from '../../audit/audit.service';
import { CompaniesService } from '../../companies/companies.service';
import { ApiFormats } from '../../platform/formats/api-formats';
import { DeviceCredentials } from '../../platform/formats/device-credentials';
import { fieldError } from '../../kernel/domain-error';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { WritePositions } from '../../platform/database/write-positions';
import { EventsService } from '../../outbox/events.service';
import { orderEvents } from '../events/order-events';
import type { OrderResponse } from '../dto/order.response';
import { type OrderJsonRow, withCredentials, withCredentialsText } from '../persistence/order-json';
import {
  changedFields,
  type OrderFieldValues,
  PLACEMENT_FIELDS,
  type PlacementField,
  toFieldValues,
  toStoredFields,
} from '../domain/order-fields';
import { canTransition, isEditable, type OrderState } from '../order-state';
import type { Order } from '../order.entity';
import { OrderChangedError, OrderNotEditableError, OrderNotFoundError } from '../orders.errors';
import { OrdersRepository } from '../persistence/orders.repository';
import { type OrderFilterQuery, toOrderFilter } from './order-filter';
import { OrderValidator } from './order-validator';

/** An order with its arrays, as its response object built by PostgreSQL (see order-json.ts). */
export type OrderWithChildren = OrderJsonRow<OrderResponse>;

/** A response body with the version of the order it shows (the ETag). */
export interface Versioned<Body> {
  body: Body;
  version: number;
}

/** If-Match: a write that names a version the order no longer has is refused (412), never applied. */
export function assertUnchanged(order: Order, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && order.version !== expectedVersion)
    throw new OrderChangedError(order.version);
}

function found<Row>(order: Row | null): Row {
  if (!order) throw new OrderNotFoundError();
  return order;
}

/** The placement fields a request body carries (unknown fields are ignored, never stored, never an error). */
function knownFields(body: unknown): Partial<OrderFieldValues> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const given = body as Record<string, unknown>;
  return Object.fromEntries(
    PLACEMENT_FIELDS.filter((field) => given[field] !== undefined).map((field) => [field, given[field]]),
  );
}

@Injectable()
export class OrdersService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly orders: OrdersRepository,
    private readonly companies: CompaniesService,
    private readonly validator: OrderValidator,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly credentials: DeviceCredentials,
    private readonly formats: ApiFormats,
    private readonly positions: WritePositions,
  ) {}

  /**
   * Places an order for the caller's company: PLACED, or TEST when `test` is true. The order, its audit row,
   * its event and the event's webhook deliveries are one statement (OrdersRepository.place); its audit row is
   * written by that statement, so the company's write position is recorded here (AuditService.record does it
   * for every other change).
   */
  place(actor: Actor, companyId: number, body: unknown): Promise<Order> {
    return this.unitOfWork.statement(async (manager) =>
      this.placeIn(manager, actor, companyId, await this.companySite(companyId, manager), body),
    );
  }

  /**
   * The placement itself, on `manager`, for a caller that already knows the company's site: `place` runs it on
   * its own, a bulk import (CONTRACT §4.11) in the transaction that also records the line it placed.
   */
  async placeIn(
    manager: EntityManager,
    actor: Actor,
    companyId: number,
    companySite: string,
    body: unknown,
  ): Promise<Order> {
    const fields = knownFields(body);
    const { values, site } = await this.validator.validate(fields, { companyId, companySite, manager });
    const stored = toStoredFields(values);
    const order = await this.orders.place(
      manager,
      { ...stored, companyId, site, state: stored.test ? 'TEST' : 'PLACED' },
      this.audit.row(actor, {
        action: 'order.placed',
        targetType: 'order',
        companyId,
        changedFields: Object.keys(fields),
      }),
      'order.placed',
    );
    this.events.writtenBy(manager, [orderEvents.placed(order)]);
    await this.positions.changed(manager, companyId);
    return order;
  }

  /** Every placement rule `placeIn` applies, without placing anything (a dry run): throws what it would. */
  async checkPlacement(companyId: number, companySite: string, body: unknown): Promise<void> {
    await this.validator.validate(knownFields(body), { companyId, companySite });
  }

  /** The company's site, which every placement's rules read; a missing company is a missing order. */
  companySiteOf(companyId: number, manager?: EntityManager): Promise<string> {
    return this.unitOfWork.statement((ambient) => this.companySite(companyId, manager ?? ambient));
  }

  /**
   * Applies any non-empty subset of the placement fields to a PLACED or TEST order; the merged order must
   * pass every placement rule. The row lock orders it against a concurrent update, cancel or "sent".
   */
  async update(
    actor: Actor,
    companyId: number,
    orderId: number,
    body: unknown,
    expectedVersion?: number,
  ): Promise<Order> {
    const fields = knownFields(body);
    if (Object.keys(fields).length === 0) {
      throw fieldError('body', `Give at least one field to change: ${PLACEMENT_FIELDS.join(', ')}.`);
    }
    return this.unitOfWork.transaction(async (manager) => {
      const order = await this.orders.lockOfCompany(manager, orderId, companyId);
      if (!order) throw new OrderNotFoundError();
      assertUnchanged(order, expectedVersion);
      if (!isEditable(order.state)) throw new OrderNotEditableError(order.state, 'updated');
      const companySite = await this.companySite(companyId, manager);
      const current = toFieldValues({ ...order, ...this.credentials.open(order) });
      const before = toStoredFields(current);
      const { values } = await this.validator.validate(
        { ...current, ...fields },
        { companyId, companySite, orderId, manager },
      );
      const after = toStoredFields(values);
      const changed: PlacementField[] = changedFields(before, after);
      if (changed.length > 0) {
        const state: OrderState = after.test ? 'TEST' : 'PLACED';
        await this.orders.update(manager, orderId, { ...after, state });
        await this.audit.record(manager, actor, {
          action: 'order.updated',
          targetType: 'order',
          targetId: orderId,
          companyId,
          changedFields: changed,
        });
        const changedOrder = { ...order, state };
        await this.events.publish(manager, companyId, orderId, [
          orderEvents.updated(changedOrder, changed),
          ...(state === order.state ? [] : [orderEvents.stateChanged(changedOrder, order.state)]),
        ]);
      }
      return (await this.orders.findOfCompany(orderId, companyId, manager))!;
    });
  }

  /** The partner cancels a PLACED or TEST order (CONTRACT §4.7), under the same lock as update. */
  cancel(actor: Actor, companyId: number, orderId: number, expectedVersion?: number): Promise<Order> {
    return this.unitOfWork.transaction(async (manager) => {
      const order = await this.orders.lockOfCompany(manager, orderId, companyId);
      if (!order) throw new OrderNotFoundError();
      assertUnchanged(order, expectedVersion);
      if (!isEditable(order.state) || !canTransition(order.state, 'CANCELLED')) {
        throw new OrderNotEditableError(order.state, 'cancelled');
      }
      await this.orders.update(manager, orderId, { state: 'CANCELLED' });
      await this.audit.record(manager, actor, {
        action: 'order.cancelled',
        targetType: 'order',
        targetId: orderId,
        companyId,
        changedFields: ['state'],
      });
      await this.events.publish(manager, companyId, orderId, [
        orderEvents.stateChanged({ ...order, state: 'CANCELLED' }, order.state),
      ]);
      return (await this.orders.findOfCompany(orderId, companyId, manager))!;
    });
  }

  /**
   * The company's order, locked until the caller's transaction ends, or null: how another module serialises
   * its own change of an order (a comment) with the order's writers.
   */
  lockOfCompany(manager: EntityManager, companyId: number, orderId: number): Promise<Order | null> {
    return this.orders.lockOfCompany(manager, orderId, companyId);
  }

  /** Moves the order's updated_at and version: something of it another module owns has changed. */
  touch(manager: EntityManager, orderId: number): Promise<void> {
    return this.orders.touch(manager, orderId);
  }

  /** The company's order as its response object (another company's order is a missing one). */
  async get(companyId: number, orderId: number, manager?: EntityManager): Promise<OrderWithChildren> {
    return found(await this.orders.findJsonOfCompany(orderId, companyId, manager));
  }

  /** The same as its response text, to be sent as it is. */
  async getText(companyId: number, orderId: number): Promise<Versioned<string>> {
    const row = found(await this.orders.findJsonTextOfCompany(orderId, companyId));
    return { body: withCredentialsText(row, this.formats), version: row.version };
  }

  /** The company's order as its response body (the device credentials opened), with its version. */
  async present(
    companyId: number,
    orderId: number,
    manager?: EntityManager,
  ): Promise<Versioned<OrderResponse>> {
    const row = await this.get(companyId, orderId, manager);
    return { body: withCredentials(row, this.formats), version: row.version };
  }

  /** Any company's order (logistics). */
  async getById(orderId: number): Promise<OrderWithChildren> {
    return found(await this.orders.findJsonById(orderId));
  }

  /** The logistics work queue, each order with its arrays: one statement whatever the page size. */
  queue(state: OrderState, offset: number, limit: number): Promise<OrderWithChildren[]> {
    return this.orders.queue(state, offset, limit);
  }

  /** A page of the company's orders as their response texts: one statement whatever the page size. */
  async list(companyId: number, query: OrderFilterQuery, offset: number, limit: number): Promise<string[]> {
    const rows = await this.orders.list(companyId, toOrderFilter(query, this.formats), offset, limit);
    return rows.map((row) => withCredentialsText(row, this.formats));
  }

  private async companySite(companyId: number, manager: EntityManager): Promise<string> {
    const site = await this.companies.siteOf(companyId, manager);
    if (site === null) throw new OrderNotFoundError();
    return site;
  }
}
