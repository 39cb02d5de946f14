import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../kernel/access/actor';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { OrderFactsRepository } from '../persistence/order-facts.repository';
import { OrderFacts } from './order-facts';
import type { Order } from '../order.entity';
import { OrderNotEditableError, OrderNotFoundError, OrderStateConflictError } from '../orders.errors';
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
 * trail, the feed and the webhooks show what a real order produces. Each step is its own transaction with the
 * order locked; under an Idempotency-Key they all commit together with the stored response.
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
   * One step at a time, each planned from the state of the locked order, so a concurrent simulation or cancel
   * is carried on from rather than refused: a 409 names the state the order is in, from which the state
   * machine really allows no move to `to`. If-Match holds until this request has taken a step.
   */
  async simulate(
    actor: Actor,
    companyId: number,
    orderId: number,
    to: SimulationTarget,
    expectedVersion?: number,
  ): Promise<Versioned<OrderResponse>> {
    let moved = false;
    for (;;) {
      const step = await this.unitOfWork.transaction(async (manager) => {
        const order = await this.orders.lockOfCompany(manager, orderId, companyId);
        if (!order) throw new OrderNotFoundError();
        if (!moved) assertUnchanged(order, expectedVersion);
        assertTest(order);
        if (moved && order.state === to) return null;
        const [next] = simulationSteps(order.state, to) ?? refuse(order, to);
        if (!isPartnerCancel(next)) await this.record(manager, actor, order, next);
        return next;
      });
      if (!step) break;
      if (isPartnerCancel(step)) {
        try {
          await this.ordersService.cancel(actor, companyId, orderId, moved ? undefined : expectedVersion);
        } catch (error) {
          // Sent or cancelled since the plan: plan again from where it is now.
          if (error instanceof OrderNotEditableError) continue;
          throw error;
        }
      }
      moved = true;
    }
    // Through the unit of work: under an Idempotency-Key the steps are not committed yet, and the answer
    // (stored to be replayed) must be the order they made.
    return this.unitOfWork.statement((manager) => this.ordersService.present(companyId, orderId, manager));
  }

  /** The step's fact, then the detailed status logistics reports with it. */
  private async record(manager: EntityManager, actor: Actor, order: Order, step: SimulationStep) {
    const now = new Date();
    const trackingNumber = sandboxTrackingNumber(order.id);
    let after: Order;
    switch (step.fact) {
      case 'sent':
        after = await this.facts.markSent(manager, actor, order);
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
        after = await this.facts.complete(manager, actor, order, { finalCompletionDate: now });
        break;
      case 'cancelled':
        after = await this.facts.addDeliveryError(manager, actor, order, {
          status: 'Cancelled',
          date: now,
          resolution: 'Cancel',
          comment: DESCRIPTION,
        });
        break;
    }
    const delivering = step.fact === 'dispatched' || step.fact === 'delivered';
    await this.facts.addDetailedStatus(manager, actor, after, {
      status: STATUS_OF[step.fact],
      statusDate: now,
      location: LOCATION,
      description: DESCRIPTION,
      trackingNumber: delivering ? trackingNumber : null,
      trackingLink: step.fact === 'delivered' ? sandboxTrackingLink(trackingNumber) : null,
    });
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
