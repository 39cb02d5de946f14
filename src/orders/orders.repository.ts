import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import { OrderComment } from '../comments/order-comment.entity';
import { DeviceCredentials } from '../common/device-credentials';
import { DeliveryError, DetailedStatus, Tracking } from './order-children.entities';
import type { OrderState, OrderType } from './order-state';
import { Order } from './order.entity';

/** The list filters of spec §4.2 and CONTRACT §4, already parsed; all ANDed, all scoped by company. */
export interface OrderFilter {
  orderId?: number;
  createdFrom?: Date;
  createdTo?: Date;
  trackingNumber?: string;
  delivered?: boolean;
  deliveredFrom?: Date;
  deliveredTo?: Date;
  orderType?: OrderType;
  state?: OrderState;
  updatedFrom?: Date;
  updatedTo?: Date;
}

/** An order's arrays, loaded for a whole page at once. */
export interface OrderChildren {
  trackings: Tracking[];
  latestStatus: DetailedStatus | null;
  deliveryErrors: DeliveryError[];
  comments: OrderComment[];
}

@Injectable()
export class OrdersRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credentials: DeviceCredentials,
  ) {}

  /** Device credentials are sealed on every write; read orders carry them sealed (DeviceCredentials.open). */
  insert(manager: EntityManager, values: Partial<Order>): Promise<Order> {
    return manager.save(manager.create(Order, this.credentials.seal(values)));
  }

  /** An order of this company, or null: another company's order is indistinguishable from a missing one. */
  findOfCompany(
    id: number,
    companyId: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Order | null> {
    return manager.findOneBy(Order, { id, companyId });
  }

  /** The same, locked until the transaction ends: updates, cancels and logistics writes are serialised. */
  lockOfCompany(manager: EntityManager, id: number, companyId: number): Promise<Order | null> {
    return manager.findOne(Order, { where: { id, companyId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Logistics works across companies: the order by id alone, locked until the transaction ends. */
  lockById(manager: EntityManager, id: number): Promise<Order | null> {
    return manager.findOne(Order, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Order | null> {
    return manager.findOneBy(Order, { id });
  }

  /** The logistics work queue: orders in a state, oldest first, never test orders (orders_state_created_idx). */
  queue(state: OrderState, offset: number, limit: number): Promise<Order[]> {
    return this.dataSource.manager.find(Order, {
      where: { state, test: false },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  async update(manager: EntityManager, id: number, values: Partial<Order>): Promise<void> {
    await manager.update(
      Order,
      { id },
      { ...this.credentials.seal(values), updatedAt: () => 'now()', version: () => 'version + 1' },
    );
  }

  /** Moves updated_at when something of the order changed (a comment, a tracking, ...). */
  touch(manager: EntityManager, id: number): Promise<void> {
    return this.update(manager, id, {});
  }

  /** Newest first (created_at, then id); one statement, every filter backed by an index starting with company_id. */
  list(companyId: number, filter: OrderFilter, offset: number, limit: number): Promise<Order[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(Order, 'o')
      .where('o.company_id = :companyId', { companyId });
    if (filter.orderId !== undefined) query.andWhere('o.id = :orderId', { orderId: filter.orderId });
    if (filter.createdFrom)
      query.andWhere('o.created_at >= :createdFrom', { createdFrom: filter.createdFrom });
    if (filter.createdTo) query.andWhere('o.created_at <= :createdTo', { createdTo: filter.createdTo });
    if (filter.updatedFrom)
      query.andWhere('o.updated_at >= :updatedFrom', { updatedFrom: filter.updatedFrom });
    if (filter.updatedTo) query.andWhere('o.updated_at <= :updatedTo', { updatedTo: filter.updatedTo });
    if (filter.orderType) query.andWhere('o.order_type = :orderType', { orderType: filter.orderType });
    if (filter.state) query.andWhere('o.state = :state', { state: filter.state });
    const tracking = (condition: string) =>
      `EXISTS (SELECT 1 FROM trackings t WHERE t.company_id = o.company_id AND t.order_id = o.id AND ${condition})`;
    if (filter.trackingNumber !== undefined) {
      query.andWhere(tracking('t.tracking_number = :trackingNumber'), {
        trackingNumber: filter.trackingNumber,
      });
    }
    if (filter.delivered !== undefined) {
      const delivered = tracking('t.delivery_date IS NOT NULL');
      query.andWhere(filter.delivered ? delivered : `NOT ${delivered}`);
    }
    if (filter.deliveredFrom || filter.deliveredTo) {
      const bounds = ['t.delivery_date IS NOT NULL'];
      if (filter.deliveredFrom) bounds.push('t.delivery_date >= :deliveredFrom');
      if (filter.deliveredTo) bounds.push('t.delivery_date <= :deliveredTo');
      query.andWhere(tracking(bounds.join(' AND ')), {
        deliveredFrom: filter.deliveredFrom,
        deliveredTo: filter.deliveredTo,
      });
    }
    return query
      .orderBy('o.created_at', 'DESC')
      .addOrderBy('o.id', 'DESC')
      .offset(offset)
      .limit(limit)
      .getMany();
  }

  /** The arrays of every order given, in four statements whatever their number. */
  async childrenOf(orderIds: number[]): Promise<Map<number, OrderChildren>> {
    const children = new Map<number, OrderChildren>(
      orderIds.map((id) => [id, { trackings: [], latestStatus: null, deliveryErrors: [], comments: [] }]),
    );
    if (orderIds.length === 0) return children;
    const manager = this.dataSource.manager;
    const [trackings, statuses, errors, comments] = await Promise.all([
      manager.find(Tracking, { where: { orderId: In(orderIds) }, order: { orderId: 'ASC', id: 'ASC' } }),
      manager
        .createQueryBuilder(DetailedStatus, 's')
        .distinctOn(['s.order_id'])
        .where('s.order_id IN (:...orderIds)', { orderIds })
        .orderBy('s.order_id')
        .addOrderBy('s.status_date', 'DESC')
        .addOrderBy('s.id', 'DESC')
        .getMany(),
      manager.find(DeliveryError, { where: { orderId: In(orderIds) }, order: { orderId: 'ASC', id: 'ASC' } }),
      manager.find(OrderComment, { where: { orderId: In(orderIds) }, order: { orderId: 'ASC', id: 'ASC' } }),
    ]);
    for (const row of trackings) children.get(row.orderId)!.trackings.push(row);
    for (const row of statuses) children.get(row.orderId)!.latestStatus = row;
    for (const row of errors) children.get(row.orderId)!.deliveryErrors.push(row);
    for (const row of comments) children.get(row.orderId)!.comments.push(row);
    return children;
  }
}
