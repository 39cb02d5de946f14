import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CompaniesService } from '../companies/companies.service';
import { ApiFormats } from '../platform/formats/api-formats';
import { EventsService } from '../outbox/events.service';
import { publicEventId } from '../outbox/event-types';
import { OrderLookupService, type OrderLookupQuery } from '../orders/application/order-lookup.service';
import { TokensService } from '../tokens/tokens.service';
import { type EventDeliveryRow, WebhooksService } from '../webhooks/webhooks.service';
import type {
  AdminOrderCompanyResponse,
  AdminOrderDeliveryResponse,
  AdminOrderListItemResponse,
  AdminOrderResponse,
  AdminOrderTimelineEntryResponse,
} from './dto/admin-order.response';

/** The bounds of an order's timeline: the newest changes and events kept, and the deliveries shown per event. */
export const TIMELINE_LIMITS = { changes: 100, events: 100, deliveriesPerEvent: 10 } as const;

const companyOf = (company: AdminOrderCompanyResponse): AdminOrderCompanyResponse => ({
  id: company.id,
  name: company.name,
  site: company.site,
});

/** A timeline entry with the instant and id it is sorted by. */
interface Sortable {
  at: Date;
  id: number;
  entry: AdminOrderTimelineEntryResponse;
}

/**
 * What an administrator needs on a partner's call (CONTRACT §6): orders across companies, and one order with
 * its company and its timeline. A read model over the modules' own reads (orders, companies, audit, tokens,
 * outbox, webhooks): each asked once per request, whatever the number of orders, changes or events.
 */
@Injectable()
export class AdminOrdersService {
  constructor(
    private readonly orders: OrderLookupService,
    private readonly companies: CompaniesService,
    private readonly audit: AuditService,
    private readonly tokens: TokensService,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksService,
    private readonly formats: ApiFormats,
  ) {}

  /** A page of orders, each with its company: two statements. */
  async list(query: OrderLookupQuery, offset: number, limit: number): Promise<AdminOrderListItemResponse[]> {
    const found = await this.orders.list(query, offset, limit);
    const companies = await this.companies.byIds(found.map((row) => row.companyId));
    return found.map(({ order, companyId }) => ({ order, company: companyOf(companies.get(companyId)!) }));
  }

  /** One order (404 when there is none), its company and its timeline, oldest first: six statements. */
  async get(orderId: number): Promise<AdminOrderResponse> {
    const { order, companyId } = await this.orders.get(orderId);
    const [companies, changes, events] = await Promise.all([
      this.companies.byIds([companyId]),
      this.audit.ofTarget('order', orderId, TIMELINE_LIMITS.changes + 1),
      this.events.ofSubject('order', orderId, TIMELINE_LIMITS.events + 1),
    ]);
    const keptChanges = changes.slice(0, TIMELINE_LIMITS.changes);
    const keptEvents = events.slice(0, TIMELINE_LIMITS.events);
    const [roles, deliveries] = await Promise.all([
      this.tokens.rolesOf(keptChanges.flatMap((change) => (change.tokenId === null ? [] : [change.tokenId]))),
      this.webhooks.deliveriesOfEvents(
        keptEvents.map((event) => event.id),
        TIMELINE_LIMITS.deliveriesPerEvent + 1,
      ),
    ]);
    let truncated = changes.length > keptChanges.length || events.length > keptEvents.length;
    const timeline: Sortable[] = [
      ...keptChanges.map((change) => ({
        at: change.occurredAt,
        id: change.id,
        entry: {
          kind: 'audit' as const,
          at: this.formats.dateTime(change.occurredAt),
          audit: {
            id: change.id,
            action: change.action,
            changed_fields: change.changedFields,
            user_name: change.userName,
            token_id: change.tokenId,
            token_role: change.tokenId === null ? null : (roles.get(change.tokenId) ?? null),
            request_id: change.requestId,
          },
        },
      })),
      ...keptEvents.map((event) => {
        const rows = deliveries.get(event.id) ?? [];
        if (rows.length > TIMELINE_LIMITS.deliveriesPerEvent) truncated = true;
        return {
          at: event.createdAt,
          id: Number(event.id),
          entry: {
            kind: 'event' as const,
            at: this.formats.dateTime(event.createdAt),
            event: {
              id: publicEventId(event.id),
              type: event.type,
              deliveries: rows.slice(0, TIMELINE_LIMITS.deliveriesPerEvent).map((row) => this.delivery(row)),
            },
          },
        };
      }),
    ];
    // A change and the events it wrote share their transaction's instant: the change comes first.
    timeline.sort(
      (a, b) =>
        a.at.getTime() - b.at.getTime() ||
        Number(a.entry.kind === 'event') - Number(b.entry.kind === 'event') ||
        a.id - b.id,
    );
    return {
      order,
      company: companyOf(companies.get(companyId)!),
      timeline: timeline.map((item) => item.entry),
      timeline_truncated: truncated,
    };
  }

  private delivery(row: EventDeliveryRow): AdminOrderDeliveryResponse {
    return {
      id: Number(row.id),
      endpoint_id: row.endpoint_id,
      endpoint_url: row.endpoint_url,
      status: row.status,
      attempt_count: row.attempt_count,
      ...(row.attempted_at !== null && {
        last_attempt: {
          attempted_at: this.formats.dateTime(row.attempted_at),
          status_code: row.status_code,
          duration_ms: row.duration_ms!,
          error: row.error,
        },
      }),
    };
  }
}
