import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryResultRow } from 'pg';
import { DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import type { AuditRow } from '../../audit/audit-row';
import { appendAuditSql, auditValues } from '../../audit/audit-sql';
import { ApiFormats } from '../../platform/formats/api-formats';
import { DeviceCredentials } from '../../platform/formats/device-credentials';
import { type PreparedStatement, PreparedStatements } from '../../platform/database/prepared-statements';
import { type ReadTarget, ReplicaReads } from '../../platform/database/replica-reads';
import { appendDraftedEventsSql, appendEventsSql, deliveriesSql } from '../../outbox/outbox-sql';
import { ORDER_SUBJECT_TYPE, type OrderEventType, placedDataSql } from '../events/order-events';
import type { OrderResponse } from '../dto/order.response';
import { STORED_PROPERTIES, type StoredFields } from '../domain/order-fields';
import { type OrderJsonRow, orderJsonSelect, type OrderJsonTextRow, orderJsonTextSelect } from './order-json';
import type { OrderState, OrderType } from '../order-state';
import { Order } from '../order.entity';

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

/** What a placement writes to its order row; every other column takes its default. */
export type PlacedOrder = StoredFields & Pick<Order, 'companyId' | 'site' | 'state'>;

/** What a fact changes on the order row: its state, and the completion's columns when given (undefined: kept). */
export interface FactChange {
  state: OrderState;
  serialNumber?: string | null;
  finalCompletionDate?: Date | null;
}

const PLACED_PROPERTIES: (keyof PlacedOrder)[] = [...STORED_PROPERTIES, 'companyId', 'site', 'state'];

/** The columns the placement statement returns, as the Order properties they fill. */
interface PlacedRow {
  id: number;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/** The SQL type a list parameter is cast to: integers (ids, the window), datetimes, else text. */
function sqlTypeOf(value: unknown): string {
  if (typeof value === 'number') return 'bigint';
  if (value instanceof Date) return 'timestamptz';
  return 'text';
}

@Injectable()
export class OrdersRepository {
  /** The placement statement (see `place`), built once from the entity's column names. */
  private placement?: PreparedStatement;
  /**
   * A partner's read of one of its orders (GET /order/{id}), as the response text: the most frequent read.
   * Built on first use, once every module has contributed its fields to the order view.
   */
  private orderTextOfCompany?: PreparedStatement;
  /** The same as an object, in a partner's write (its read-back) or its transaction. */
  private orderOfCompany?: PreparedStatement;
  /** Logistics' read of any order: the read-back after each logistics write. */
  private orderById?: PreparedStatement;
  /** The order row locked for a write (see `lockOfCompany` and `lockById`), prepared like the reads. */
  private lockOfCompanyStatement?: PreparedStatement;
  private lockByIdStatement?: PreparedStatement;
  /** The order row by id, not locked: a fact's write checks that the version read is still the row's. */
  private rowByIdStatement?: PreparedStatement;
  private factStatement?: PreparedStatement;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
    private readonly credentials: DeviceCredentials,
    private readonly formats: ApiFormats,
    private readonly reads: ReplicaReads,
  ) {}

  /**
   * Places an order in one statement: the order row, its audit row (target: the new order's id), its
   * `order.placed` event and one pending webhook delivery per active endpoint of the company. A statement is
   * atomic, so outside a transaction it needs no BEGIN/COMMIT: one round trip, durable when it returns. Under
   * an Idempotency-Key it runs in that request's transaction (`manager`). The statement is prepared once per
   * connection (a named statement), so PostgreSQL parses and plans it once.
   */
  async place(
    manager: EntityManager,
    values: PlacedOrder,
    audit: Omit<AuditRow, 'targetId'>,
    eventType: OrderEventType,
  ): Promise<Order> {
    const sealed = this.credentials.seal(values);
    const [row] = await this.prepared.rowsOn<PlacedRow>(manager, this.placementStatement(), [
      ...PLACED_PROPERTIES.map((property) => sealed[property]),
      ...auditValues(audit),
      eventType,
    ]);
    return Object.assign(new Order(), sealed, row);
  }

  private placementStatement(): PreparedStatement {
    if (this.placement) return this.placement;
    const metadata = this.dataSource.getMetadata(Order);
    const columns = PLACED_PROPERTIES.map(
      (property) => metadata.findColumnWithPropertyName(property)!.databaseName,
    );
    const next = (offset: number) => `$${columns.length + offset}`;
    const companyId = `$${PLACED_PROPERTIES.indexOf('companyId') + 1}`;
    this.placement = {
      name: 'orders_place',
      text: `WITH placed AS (
         INSERT INTO orders (${columns.join(', ')})
         VALUES (${columns.map((_, index) => `$${index + 1}`).join(', ')})
         RETURNING id, company_id, site, state, order_type, test, created_at, updated_at, version
       ), audit AS (
         ${appendAuditSql('placed', {
           tokenId: `${next(1)}::integer`,
           userName: `${next(2)}::varchar`,
           requestId: `${next(3)}::varchar`,
           companyId: `${next(4)}::integer`,
           action: `${next(5)}::varchar`,
           targetType: `${next(6)}::varchar`,
           targetId: 'placed.id::text',
           changedFields: `${next(7)}::text[]`,
         })}
       ), event AS (
         ${appendEventsSql('placed', {
           companyId: 'placed.company_id',
           subjectType: ORDER_SUBJECT_TYPE,
           subjectId: 'placed.id',
           type: `${next(8)}::varchar`,
           data: placedDataSql('placed'),
         })}
       ), deliveries AS (
         ${deliveriesSql('event', companyId)}
       )
       SELECT id, created_at AS "createdAt", updated_at AS "updatedAt", version FROM placed`,
    };
    return this.placement;
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
  async lockOfCompany(manager: EntityManager, id: number, companyId: number): Promise<Order | null> {
    this.lockOfCompanyStatement ??= {
      name: 'orders_lock_of_company',
      text: `SELECT ${this.orderColumns()} FROM orders WHERE id = $1 AND company_id = $2 FOR UPDATE`,
    };
    const [row] = await this.prepared.rowsOn<Order>(manager, this.lockOfCompanyStatement, [id, companyId]);
    return row ? Object.assign(new Order(), row) : null;
  }

  /** Logistics works across companies: the order by id alone, locked until the transaction ends. */
  async lockById(manager: EntityManager, id: number): Promise<Order | null> {
    this.lockByIdStatement ??= {
      name: 'orders_lock_by_id',
      text: `SELECT ${this.orderColumns()} FROM orders WHERE id = $1 FOR UPDATE`,
    };
    const [row] = await this.prepared.rowsOn<Order>(manager, this.lockByIdStatement, [id]);
    return row ? Object.assign(new Order(), row) : null;
  }

  /** Logistics works across companies: the order by id alone, as it is now (no lock, no transaction). */
  async rowById(id: number): Promise<Order | null> {
    this.rowByIdStatement ??= {
      name: 'orders_row_by_id',
      text: `SELECT ${this.orderColumns()} FROM orders WHERE id = $1`,
    };
    const [row] = await this.prepared.rows<Order>(this.rowByIdStatement, [id]);
    return row ? Object.assign(new Order(), row) : null;
  }

  /** Every column of the order row, named by its Order property: a row that is the entity's values. */
  private orderColumns(): string {
    return this.dataSource
      .getMetadata(Order)
      .columns.map((column) => `${column.databaseName} AS "${column.propertyName}"`)
      .join(', ');
  }

  findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Order | null> {
    return manager.findOneBy(Order, { id });
  }

  /** An order of this company as its response object, or null (another company's order is a missing one). */
  async findJsonOfCompany(
    id: number,
    companyId: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<OrderJsonRow<OrderResponse> | null> {
    this.orderOfCompany ??= {
      name: 'order_json_of_company',
      text: `SELECT ${orderJsonSelect('o', '$3', 'comments')} FROM orders o WHERE o.id = $1 AND o.company_id = $2`,
    };
    const rows = await this.prepared.rowsOn<OrderJsonRow<OrderResponse>>(manager, this.orderOfCompany, [
      id,
      companyId,
      this.formats.timeZone,
    ]);
    return rows[0] ?? null;
  }

  /** The same as its response text, to be sent as it is: GET /order/{id}, which a read replica may answer. */
  async findJsonTextOfCompany(id: number, companyId: number): Promise<OrderJsonTextRow | null> {
    this.orderTextOfCompany ??= {
      name: 'order_text_of_company',
      text: `SELECT ${orderJsonTextSelect('o', '$3', 'comments')} FROM orders o WHERE o.id = $1 AND o.company_id = $2`,
      signature: {
        parameters: ['integer', 'integer', 'text'],
        returns: 'body text, login varchar, password varchar, version integer, company_id integer',
      },
    };
    const statement = this.orderTextOfCompany;
    const rows = await this.reads.read(companyId, (db) =>
      db.rows<OrderJsonTextRow>(statement, [id, companyId, this.formats.timeZone]),
    );
    return rows[0] ?? null;
  }

  /** Logistics works across companies: any order by id, as its response object. */
  async findJsonById(id: number): Promise<OrderJsonRow<OrderResponse> | null> {
    this.orderById ??= {
      name: 'order_json_by_id',
      text: `SELECT ${orderJsonSelect('o', '$2', 'comments')} FROM orders o WHERE o.id = $1`,
    };
    const rows = await this.prepared.rows<OrderJsonRow<OrderResponse>>(this.orderById, [
      id,
      this.formats.timeZone,
    ]);
    return rows[0] ?? null;
  }

  /** The logistics work queue: orders in a state, oldest first, never test orders (orders_state_created_idx). */
  queue(state: OrderState, offset: number, limit: number): Promise<OrderJsonRow<OrderResponse>[]> {
    const page = this.dataSource.manager
      .createQueryBuilder(Order, 'o')
      .where('o.state = :state AND o.test = false', { state })
      .orderBy('o.created_at', 'ASC')
      .addOrderBy('o.id', 'ASC');
    return this.pageAsJson(
      (statement, values) => this.prepared.rows(statement, values),
      'orders_queue',
      page,
      offset,
      limit,
      (zone) => orderJsonSelect('p', zone, 'comments'),
      'created_at ASC, id ASC',
    );
  }

  async update(manager: EntityManager, id: number, values: Partial<Order>): Promise<void> {
    await manager.update(
      Order,
      { id },
      { ...this.credentials.seal(values), updatedAt: () => 'now()', version: () => 'version + 1' },
    );
  }

  /**
   * A fact recorded on a locked order in one statement: the order row (its state, the completion's columns
   * when given, updated_at, version), its audit row, its events (EventsService.draftColumns) and their
   * deliveries; it returns the order as its response object, as `findJsonById` would read it once the
   * transaction commits (built from the changed row; its children as the transaction sees them, the fact's own
   * included), so the write needs no read after it. Four round trips fewer than writing and reading each on its
   * own. It writes only while the row still has `order.version` (no other change came between the read of the
   * order and this statement, which a lock also guarantees): otherwise nothing, and it returns undefined.
   */
  async recordFact(
    manager: EntityManager,
    order: Pick<Order, 'id' | 'companyId' | 'version'>,
    change: FactChange,
    audit: Omit<AuditRow, 'targetId'>,
    events: [string[], string[], string[]],
  ): Promise<OrderJsonRow<OrderResponse> | undefined> {
    this.factStatement ??= {
      name: 'orders_record_fact',
      text: `WITH changed AS (
         UPDATE orders SET state = $2::varchar,
           serial_number = CASE WHEN $3::boolean THEN $4::varchar ELSE serial_number END,
           final_completion_date = CASE WHEN $5::boolean THEN $6::timestamptz ELSE final_completion_date END,
           updated_at = now(), version = version + 1
         WHERE id = $1 AND version = $19
         RETURNING *
       ), audit AS (
         ${appendAuditSql('changed', {
           tokenId: '$7::integer',
           userName: '$8::varchar',
           requestId: '$9::varchar',
           companyId: '$10::integer',
           action: '$11::varchar',
           targetType: '$12::varchar',
           targetId: 'changed.id::text',
           changedFields: '$13::text[]',
         })}
       ), event AS (
         ${appendDraftedEventsSql(
           {
             companyId: '$14::integer',
             subjectId: 'changed.id',
             subjectTypes: '$15::varchar[]',
             types: '$16::varchar[]',
             data: '$17::json[]',
           },
           'changed',
         )}
       ), deliveries AS (
         ${deliveriesSql('event', '$14::integer')}
       )
       SELECT ${orderJsonSelect('o', '$18', 'comments')} FROM changed o`,
    };
    const [row] = await this.prepared.rowsOn<OrderJsonRow<OrderResponse>>(manager, this.factStatement, [
      order.id,
      change.state,
      change.serialNumber !== undefined,
      change.serialNumber ?? null,
      change.finalCompletionDate !== undefined,
      change.finalCompletionDate ?? null,
      ...auditValues(audit),
      order.companyId,
      ...events,
      this.formats.timeZone,
      order.version,
    ]);
    return row;
  }

  /** Moves updated_at when something of the order changed (a comment, a tracking, ...). */
  touch(manager: EntityManager, id: number): Promise<void> {
    return this.update(manager, id, {});
  }

  /**
   * Newest first (created_at, then id); one statement, every filter backed by an index starting with company_id.
   * Each order comes as its response text, to be sent as it is. A read replica may answer it.
   */
  list(companyId: number, filter: OrderFilter, offset: number, limit: number): Promise<OrderJsonTextRow[]> {
    const query = this.filtered(companyId, filter).orderBy('o.created_at', 'DESC').addOrderBy('o.id', 'DESC');
    return this.reads.read(companyId, (target) =>
      this.pageAsJson(
        (statement, values) => target.rows(statement, values),
        'orders_list',
        query,
        offset,
        limit,
        (zone) => orderJsonTextSelect('p', zone, 'partner_comments'),
        'created_at DESC, id DESC',
      ),
    );
  }

  /** The company's orders that pass the filter (alias `o`), unordered: the list's and the export's query. */
  filtered(companyId: number, filter: OrderFilter): SelectQueryBuilder<Order> {
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
    // A delivery condition holds for many orders of any age: OFFSET 0 keeps its EXISTS a check of each order
    // (PostgreSQL never turns a subquery with OFFSET into a join), so the orders are read newest first along
    // orders_company_created_idx until the page is full, never the company's whole history of trackings
    // hashed and joined for one page.
    const delivery = (condition: string) => tracking(`${condition} OFFSET 0`);
    if (filter.delivered !== undefined) {
      const delivered = delivery('t.delivery_date IS NOT NULL');
      query.andWhere(filter.delivered ? delivered : `NOT ${delivered}`);
    }
    if (filter.deliveredFrom || filter.deliveredTo) {
      const bounds = ['t.delivery_date IS NOT NULL'];
      if (filter.deliveredFrom) bounds.push('t.delivery_date >= :deliveredFrom');
      if (filter.deliveredTo) bounds.push('t.delivery_date <= :deliveredTo');
      query.andWhere(delivery(bounds.join(' AND ')), {
        deliveredFrom: filter.deliveredFrom,
        deliveredTo: filter.deliveredTo,
      });
    }
    return query;
  }

  /**
   * One statement: the page of orders the query selects, each built into its response object (children
   * included) by PostgreSQL for the page's rows only. Prepared: the text depends only on which filters are
   * given, so each combination is planned once per connection, then run by name (`prefix` and a digest of
   * the text). Every value of the selection, the window included, reaches the planner as an initplan
   * (`(SELECT $n::type)`), so a custom plan knows no more than the generic one and PostgreSQL keeps the
   * generic plan after its five trial runs: seeing the largest company's statistics or the page size, a
   * custom plan would always cost less on paper, and every page would be planned anew.
   */
  private async pageAsJson<Row extends QueryResultRow>(
    rows: ReadTarget['rows'],
    prefix: string,
    page: SelectQueryBuilder<Order>,
    offset: number,
    limit: number,
    select: (zone: string) => string,
    order: string,
  ): Promise<Row[]> {
    const [sql, parameters] = page.select('o.*').getQueryAndParameters();
    const values = [...(parameters as unknown[]), limit, offset];
    const hidden = (position: number) => `(SELECT $${position}::${sqlTypeOf(values[position - 1])})`;
    const selection = `${sql.replace(/\$(\d+)/g, (_, position: string) => hidden(Number(position)))} LIMIT ${hidden(values.length - 1)} OFFSET ${hidden(values.length)}`;
    const text = `SELECT ${select(`$${values.length + 1}`)} FROM (${selection}) p ORDER BY ${order}`;
    const name = `${prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    return rows<Row>({ name, text }, [...values, this.formats.timeZone]);
  }
}
