import { Injectable } from '@nestjs/common';
import { ApiFormats } from '../platform/formats/api-formats';
import { OrderLookupService } from '../orders/application/order-lookup.service';
import type { OrderResponse } from '../orders/dto/order.response';
import { EventsService } from '../outbox/events.service';
import { publicEventId } from '../outbox/event-types';
import { WebhooksService } from '../webhooks/webhooks.service';
import type {
  RequestErrorGroupResponse,
  RequestEventResponse,
  RequestLogDetailResponse,
  RequestLogEntryResponse,
} from './dto/request-log.response';
import type { RequestLogEntry } from './request-log-entry.entity';
import { type ListRequestsQuery, type RequestWindowQuery, statusRange } from './dto/list-requests.query';
import { RequestNotFoundError } from './request-log.errors';
import { type RequestLogFilter, RequestLogRepository } from './request-log.repository';

/** The bounds of a detail and of the error groups. */
export const DETAIL_LIMITS = { events: 100, deliveriesPerEvent: 10, errorGroups: 100 } as const;

/** A request id as the service accepts one (X-Request-Id): anything else names no request. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request log as partners and admins read it (CONTRACT §4.12). A partner's reads carry its company, so
 * another company's request is missing (404) like one that never was; an admin's name none, or the one it asks.
 */
@Injectable()
export class RequestLogService {
  constructor(
    private readonly repository: RequestLogRepository,
    private readonly orders: OrderLookupService,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksService,
    private readonly formats: ApiFormats,
  ) {}

  /** A page of the company's requests (every company's when none is given), newest first: one statement. */
  async list(
    query: ListRequestsQuery,
    companyId: number | undefined,
    offset: number,
    limit: number,
  ): Promise<RequestLogEntryResponse[]> {
    const filter: RequestLogFilter = {
      ...this.window(query),
      companyId,
      status: statusRange(query.status),
      route: query.route,
      tokenId: query.token_id,
    };
    return (await this.repository.list(filter, offset, limit)).map((entry) => this.entry(entry));
  }

  /**
   * One request (the newest of that id) and what it caused: the order it touched, read as its own company sees
   * it now, and that order's events written while the request ran, with their deliveries: four statements.
   */
  async get(requestId: string, companyId?: number): Promise<RequestLogDetailResponse> {
    const entry = REQUEST_ID.test(requestId)
      ? await this.repository.byRequestId(requestId, companyId)
      : undefined;
    if (!entry) throw new RequestNotFoundError();
    const [order, events] =
      entry.orderId === null
        ? [null, []]
        : await Promise.all([this.order(entry.orderId, entry.companyId), this.eventsOf(entry)]);
    return { ...this.entry(entry), order, events };
  }

  /** The failed requests of the window grouped by route, status and message, the largest groups first. */
  async errors(query: RequestWindowQuery, companyId?: number): Promise<RequestErrorGroupResponse[]> {
    const groups = await this.repository.errorGroups(
      { ...this.window(query), companyId },
      DETAIL_LIMITS.errorGroups,
    );
    return groups.map((group) => ({
      route: group.route,
      status: group.status,
      message: group.message,
      count: Number(group.count),
      latest_request_id: group.latest_request_id,
      latest_at: this.formats.dateTime(group.latest_at),
      company_id: group.company_id,
    }));
  }

  /** The window's bounds as instants, in the service time zone (the query DTO validated them). */
  private window(query: RequestWindowQuery): Pick<RequestLogFilter, 'from' | 'to'> {
    return {
      from: query.from === undefined ? undefined : this.formats.parseDateTime(query.from)!,
      to: query.to === undefined ? undefined : this.formats.parseDateTime(query.to)!,
    };
  }

  private async order(orderId: number, companyId: number): Promise<OrderResponse | null> {
    const { order, companyId: owner } = await this.orders.get(orderId);
    return owner === companyId ? order : null;
  }

  private async eventsOf(entry: RequestLogEntry): Promise<RequestEventResponse[]> {
    const ended = new Date(entry.createdAt.getTime() + entry.durationMs + 1);
    const events = await this.events.ofSubjectBetween(
      'order',
      entry.orderId!,
      entry.createdAt,
      ended,
      DETAIL_LIMITS.events,
    );
    const deliveries = await this.webhooks.deliveriesOfEvents(
      events.map((event) => event.id),
      DETAIL_LIMITS.deliveriesPerEvent,
    );
    return events.map((event) => ({
      id: publicEventId(event.id),
      type: event.type,
      created_at: this.formats.dateTime(event.createdAt),
      deliveries: (deliveries.get(event.id) ?? []).map((row) => ({
        id: Number(row.id),
        endpoint_id: row.endpoint_id,
        status: row.status,
        attempt_count: row.attempt_count,
        last_status_code: row.status_code,
      })),
    }));
  }

  private entry(entry: RequestLogEntry): RequestLogEntryResponse {
    return {
      request_id: entry.requestId,
      created_at: this.formats.dateTime(entry.createdAt),
      method: entry.method,
      route: entry.route,
      path: entry.path,
      status: entry.status,
      duration_ms: entry.durationMs,
      company_id: entry.companyId,
      token_id: entry.tokenId,
      user_name: entry.userName,
      idempotency_key: entry.idempotencyKey,
      order_id: entry.orderId,
      response_body: entry.responseBody,
    };
  }
}
