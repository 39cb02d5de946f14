import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../kernel/access/actor';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { OrderFactsRepository } from '../persistence/order-facts.repository';
import { OrderFacts } from './order-facts';
import type { Order } from '../order.entity';
import { OrderNotFoundError, OrderStateConflictError } from '../orders.errors';
import { OrdersRepository } from '../persistence/orders.repository';
import type { OrderResponse } from '../dto/order.response';
import { assertUnchanged, OrdersService, type Versioned } from './orders.service';
import { type SimulationStep, type SimulationTarget, simulationSteps } from '../domain/simulation';

/** Where the details of what the sandbox records say that it was simulated. */
const LOCATION = 'Sandbox';
const DESCRIPTION = 'Simulated by the sandbox: no parcel exists.';

/** The tracking number the sandbox gives a test order. */
export const sandboxTrackingNumber = (orderId: number): string => `TEST-${orderId}`;

/**
 * The partner's sandbox (CONTRACT §4.9): moves one of its TEST orders through the lifecycle by recording, step
 * by step, the facts logistics would report, through the same OrderFacts the logistics API uses, so the audit
 * trail, the feed and the webhooks show what a real order produces. A simulation is one transaction with the
 * order locked from the plan to the answer (under an Idempotency-Key, the key's transaction).
 */
@Injectable()
export class SandboxService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly orders: OrdersRepository,
    private readonly ordersService: OrdersService,
    private readonly facts: OrderFacts,
    private readonly trackings: OrderFactsRepository,
  ) {}

  /**
   * Every step is planned from the locked order and taken before the lock is let go, so simulations of one
   * order are applied one after the other, as if sent one after the other: of ten concurrent calls to the
   * same state, the first moves the order and the others get the 409 naming the state it is then in. If-Match
   * is checked against the order as locked.
   */
  simulate(
    actor: Actor,
    companyId: number,
    orderId: number,
    to: SimulationTarget,
    expectedVersion?: number,
  ): Promise<Versioned<OrderResponse>> {
    return this.unitOfWork.around(async (manager) => {
      let order = await this.orders.lockOfCompany(manager, orderId, companyId);
      if (!order) throw new OrderNotFoundError();
      assertUnchanged(order, expectedVersion);
      assertTest(order);
      for (const step of simulationSteps(order.state, to) ?? refuse(order, to)) {
        // Joins this transaction: the partner's own cancel, under the lock already held.
        if (isPartnerCancel(step)) await this.ordersService.cancel(actor, companyId, orderId);
        else order = await this.record(manager, actor, order, step);
      }
      return this.ordersService.present(companyId, orderId, manager);
    });
  }

  /** The step's fact, then the detailed status logistics reports with it. */
  private async record(
    manager: EntityManager,
    actor: Actor,
    order: Order,
    step: SimulationStep,
  ): Promise<Order> {
    const now = new Date();
    const trackingNumber = sandboxTrackingNumber(order.id);
    let after: Order;
    switch (step.fact) {
      case 'sent':
        ({ order: after } = await this.facts.markSent(manager, actor, order));
        break;
      case 'dispatched':
        ({ order: after } = await this.facts.putTracking(manager, actor, order, trackingNumber, {
          status: 'Dispatched',
          statusDate: now,
          dispatchDate: now,
          deliveryDate: null,
          trackingLink: null,
        }));
        break;
      case 'delivered':
        ({ order: after } = await this.facts.putTracking(manager, actor, order, trackingNumber, {
          status: 'Delivered',
          statusDate: now,
          dispatchDate: await this.trackings.dispatchDateOf(manager, order.id, trackingNumber),
          deliveryDate: now,
          trackingLink: sandboxTrackingLink(trackingNumber),
        }));
        break;
      case 'completed':
        ({ order: after } = await this.facts.complete(manager, actor, order, { finalCompletionDate: now }));
        break;
      case 'cancelled':
        ({ order: after } = await this.facts.addDeliveryError(manager, actor, order, {
          status: 'Cancelled',
          date: now,
          resolution: 'Cancel',
          comment: DESCRIPTION,
        }));
        break;
    }
    const delivering = step.fact === 'dispatched' || step.fact === 'delivered';
    const { order: recorded } = await this.facts.addDetailedStatus(manager, actor, after, {
      status: STATUS_OF[step.fact],
      statusDate: now,
      location: LOCATION,
      description: DESCRIPTION,
      trackingNumber: delivering ? trackingNumber : null,
      trackingLink: step.fact === 'delivered' ? sandboxTrackingLink(trackingNumber) : null,
    });
    return recorded;
  }
}

const STATUS_OF: Record<SimulationStep['fact'], string> = {
  sent: 'Sent to logistics',
  dispatched: 'Dispatched',
  delivered: 'Delivered',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

/** A link of the reserved example.com domain: a test parcel has no tracking page. */
const sandboxTrackingLink = (trackingNumber: string) => `https://tracking.example.com/${trackingNumber}`;

/** A TEST order is cancelled as its partner cancels it (OrdersService.cancel), in a transaction of its own. */
const isPartnerCancel = (step: SimulationStep) => step.from === 'TEST' && step.fact === 'cancelled';

function assertTest(order: Order): void {
  if (!order.test) throw new OrderStateConflictError('Only test orders can be simulated.');
}

function refuse(order: Order, to: SimulationTarget): never {
  throw new OrderStateConflictError(`The order is ${order.state}: the sandbox cannot move it to ${to}.`);
}
