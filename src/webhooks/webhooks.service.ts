import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import { CompaniesService } from '../companies/companies.service';
import { fieldError } from '../kernel/domain-error';
import { SecretSealer } from '../platform/formats/secret-sealer';
import { groupBy } from '../kernel/group-by';
import type { Environment } from '../platform/config/environment';
import { UnitOfWork } from '../platform/database/unit-of-work';
import type { DeclaredEventType } from '../outbox/event-types';
import { EventsService } from '../outbox/events.service';
import type { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { generateWebhookSecret, isValidWebhookSecret } from './webhook-secret';
import { webhookHostError, webhookUrlFormError } from './webhook-url';
import { DeliveryNotFoundError, DeliveryNotRetryableError, WebhookNotFoundError } from './webhooks.errors';
import { type EndpointFilter, WebhooksRepository } from './webhooks.repository';

export interface NewWebhook {
  companyId: number;
  url: string;
  secret?: string;
}

export interface DeliveryWithAttempts {
  delivery: WebhookDelivery & { eventType: DeclaredEventType };
  attempts: WebhookAttempt[];
}

/** Admins register and remove a company's webhook endpoints and read their delivery log (CONTRACT §6). */
@Injectable()
export class WebhooksService {
  private readonly allowPrivate: boolean;

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly webhooks: WebhooksRepository,
    private readonly companies: CompaniesService,
    private readonly audit: AuditService,
    private readonly sealer: SecretSealer,
    private readonly dispatcher: WebhookDispatcher,
    private readonly events: EventsService,
    config: ConfigService<Environment, true>,
  ) {
    this.allowPrivate = config.get('WEBHOOK_ALLOW_PRIVATE', { infer: true });
  }

  /**
   * Registers an endpoint. Its secret is stored sealed (AES-256-GCM under DEVICE_CREDENTIALS_KEY, like the
   * device credentials): the dispatcher must be able to sign with it, so it cannot be hashed. The plain
   * secret returned here is the only time it is shown.
   */
  async create(actor: Actor, input: NewWebhook): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const urlError = webhookUrlFormError(input.url) ?? (await webhookHostError(input.url, this.allowPrivate));
    if (urlError) throw fieldError('url', urlError);
    if (input.secret !== undefined && !isValidWebhookSecret(input.secret)) {
      throw fieldError('secret', 'The secret must be whsec_ and the base64 of 24 to 64 bytes.');
    }
    const secret = input.secret ?? generateWebhookSecret();
    return this.unitOfWork.transaction(async (manager) => {
      if (!(await this.companies.exists(input.companyId, manager))) {
        throw fieldError('company_id', 'No company has this id.');
      }
      const endpoint = await this.webhooks.insertEndpoint(manager, {
        companyId: input.companyId,
        url: input.url,
        secret: this.sealer.seal(secret),
      });
      await this.audit.record(manager, actor, {
        action: 'webhook.created',
        targetType: 'webhook',
        targetId: endpoint.id,
        companyId: endpoint.companyId,
        changedFields: ['url', 'secret'],
      });
      return { endpoint, secret };
    });
  }

  list(filter: EndpointFilter, offset: number, limit: number): Promise<WebhookEndpoint[]> {
    return this.webhooks.listEndpoints(filter, offset, limit);
  }

  /** Deletes an endpoint: nothing more is sent to it, waiting deliveries are cancelled, its log stays. */
  remove(actor: Actor, id: number): Promise<WebhookEndpoint> {
    return this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpoint(id, manager);
      if (!endpoint || endpoint.deletedAt) throw new WebhookNotFoundError();
      await this.webhooks.deactivate(manager, id, { deletedAt: new Date() });
      await this.audit.record(manager, actor, {
        action: 'webhook.deleted',
        targetType: 'webhook',
        targetId: id,
        companyId: endpoint.companyId,
        changedFields: ['active', 'deleted_at'],
      });
      return (await this.webhooks.findEndpoint(id, manager))!;
    });
  }

  /**
   * An endpoint's deliveries, newest first, each with its event's type and its attempts: four statements
   * whatever the page size.
   */
  async deliveries(id: number, offset: number, limit: number): Promise<DeliveryWithAttempts[]> {
    if (!(await this.webhooks.findEndpoint(id))) throw new WebhookNotFoundError();
    return this.withLog(await this.webhooks.listDeliveries(id, offset, limit));
  }

  /** The deliveries with their events' types (from the outbox) and their attempts. */
  private async withLog(deliveries: WebhookDelivery[]): Promise<DeliveryWithAttempts[]> {
    const ids = deliveries.map((row) => row.id);
    const [events, attempts] = await Promise.all([
      this.events.byIds(deliveries.map((row) => row.eventId)),
      this.webhooks.attemptsOf(ids).then((rows) => groupBy(rows, (row) => row.deliveryId)),
    ]);
    return deliveries.map((delivery) => ({
      delivery: Object.assign(delivery, { eventType: events.get(delivery.eventId)!.type }),
      attempts: attempts.get(delivery.id) ?? [],
    }));
  }

  /**
   * Sends a delivery that has not succeeded again now, with the same webhook-id and a fresh timestamp and
   * signature, and returns it with the new attempt in its log. If the attempt fails, a pending delivery keeps
   * its automatic schedule and a given-up one stays given up. Refused while an attempt of it is in flight (a
   * dispatcher's or another hand retry's), once it succeeded, or when its endpoint no longer receives.
   */
  async retry(actor: Actor, endpointId: number, deliveryId: string): Promise<DeliveryWithAttempts> {
    const claimed = await this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpoint(endpointId, manager);
      if (!endpoint) throw new WebhookNotFoundError();
      const delivery = await this.webhooks.findDeliveryForUpdate(manager, endpointId, deliveryId);
      if (!delivery) throw new DeliveryNotFoundError();
      const refusal = retryRefusal(delivery, endpoint);
      if (refusal) throw new DeliveryNotRetryableError(refusal);
      const inFlight = await this.webhooks.claimForRetry(manager, deliveryId, this.dispatcher.leaseMs);
      if (!inFlight) {
        throw new DeliveryNotRetryableError(
          'An attempt of this delivery is being sent right now: see its result in the delivery log.',
        );
      }
      await this.audit.record(manager, actor, {
        action: 'webhook.delivery_retried',
        targetType: 'webhook',
        targetId: endpointId,
        companyId: endpoint.companyId,
        changedFields: ['deliveries'],
      });
      return inFlight;
    });
    await this.dispatcher.deliver([claimed]);
    const [logged] = await this.withLog([(await this.webhooks.findDelivery(endpointId, deliveryId))!]);
    return logged;
  }
}

/** Why a delivery may not be sent again by hand whatever is in flight, or null when it may. */
function retryRefusal(delivery: WebhookDelivery, endpoint: WebhookEndpoint): string | null {
  if (delivery.status === 'succeeded') return 'This delivery has already succeeded: it is not sent again.';
  return endpoint.active
    ? null
    : 'This endpoint no longer receives deliveries (deleted, or it answered 410 Gone): register it again.';
}
