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
import { eventRowId } from '../outbox/event-types';
import type { WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookEndpoint } from './webhook-endpoint.entity';
import { generateWebhookSecret, isValidWebhookSecret } from './webhook-secret';
import { webhookHostError, webhookUrlFormError } from './webhook-url';
import {
  DeliveryNotFoundError,
  DeliveryNotRetryableError,
  EndpointLimitError,
  WebhookNotFoundError,
} from './webhooks.errors';
import { DeliveryQueue } from './delivery-queue';
import {
  type DeliveryFilter,
  type EndpointFilter,
  type EndpointScope,
  type EventDeliveryRow,
  WebhooksRepository,
} from './webhooks.repository';
import { RETRY_WINDOW_MS } from './retry-schedule';

/** What other modules read of a delivery: its statuses, and a delivery of an event as an order's timeline shows it. */
export { DELIVERY_STATUSES, type DeliveryStatus } from './webhook-delivery.entity';
export type { EventDeliveryRow } from './webhooks.repository';

export interface NewWebhook {
  companyId: number;
  url: string;
  secret?: string;
}

/** The most endpoints a company has (deleted ones do not count). */
export const MAX_ENDPOINTS_PER_COMPANY = 20;

/** A change of an endpoint's settings; an absent field is left as it is. */
export interface WebhookSettings {
  /** Where events are POSTed from now on, under the same rules as at registration. */
  url?: string;
  /** null: every event type. */
  eventTypes?: string[] | null;
  enabled?: boolean;
}

export interface SecretRotation {
  /** The new secret; generated when absent. */
  secret?: string;
  /** Until when the previous secret signs too; 24 hours from now when absent. */
  previousSecretExpiresAt?: Date;
}

/** The longest overlap of a rotation, and the one given when none is asked. */
export const MAX_ROTATION_OVERLAP_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface DeliveryWithAttempts {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

/** A delivery log's filters as callers give them (every given one applies). */
export interface DeliveryLogFilter extends Omit<DeliveryFilter, 'eventId'> {
  /** The event's public id (`evt_1042`), its webhook-id. */
  eventId?: string;
}

/** One delivery in full, with the company of its endpoint. */
export interface DeliveryDetail extends DeliveryWithAttempts {
  companyId: number;
}

/**
 * Admins, and partners for their own company (`EndpointScope`), register, change and remove webhook endpoints,
 * rotate their secrets and read their delivery log (CONTRACT §6).
 */
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
    private readonly queue: DeliveryQueue,
    config: ConfigService<Environment, true>,
  ) {
    this.allowPrivate = config.get('WEBHOOK_ALLOW_PRIVATE', { infer: true });
  }

  /**
   * Registers an endpoint, one of at most MAX_ENDPOINTS_PER_COMPANY of its company. Its secret is stored sealed
   * (AES-256-GCM under DEVICE_CREDENTIALS_KEY, like the device credentials): the dispatcher must be able to sign
   * with it, so it cannot be hashed. The plain secret returned here is the only time it is shown.
   */
  async create(actor: Actor, input: NewWebhook): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    await this.assertDestination(input.url);
    const secret = chosenSecret(input.secret);
    return this.unitOfWork.transaction(async (manager) => {
      if (!(await this.companies.exists(input.companyId, manager))) {
        throw fieldError('company_id', 'No company has this id.');
      }
      if ((await this.webhooks.countEndpointsLocked(manager, input.companyId)) >= MAX_ENDPOINTS_PER_COMPANY) {
        throw new EndpointLimitError(MAX_ENDPOINTS_PER_COMPANY);
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

  /** One endpoint; a deleted one is missing, and so is another company's for a partner. */
  async get(id: number, scope: EndpointScope = {}): Promise<WebhookEndpoint> {
    const endpoint = await this.webhooks.findEndpoint(id, undefined, scope);
    if (!endpoint) throw new WebhookNotFoundError();
    return endpoint;
  }

  /**
   * Changes an endpoint's URL (checked as at registration; the deliveries waiting go to the new one) and which
   * event types it receives, and disables or enables it. Disabled, its waiting deliveries and those of later
   * events are paused (nothing is sent); enabled again, the paused ones are sent at once, except those older than
   * the 24-hour retry window, which are given up.
   */
  async update(
    actor: Actor,
    id: number,
    settings: WebhookSettings,
    scope: EndpointScope = {},
  ): Promise<WebhookEndpoint> {
    const eventTypes = settings.eventTypes && [...new Set(settings.eventTypes)];
    if (settings.url !== undefined) await this.assertDestination(settings.url);
    return this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpointForUpdate(manager, id, scope);
      if (!endpoint) throw new WebhookNotFoundError();
      const changedFields: string[] = [];
      if (settings.url !== undefined && settings.url !== endpoint.url) {
        await this.webhooks.updateEndpoint(manager, id, { url: settings.url });
        changedFields.push('url');
      }
      if (eventTypes !== undefined && !sameTypes(eventTypes, endpoint.eventTypes)) {
        await this.webhooks.updateEndpoint(manager, id, { eventTypes });
        changedFields.push('event_types');
      }
      if (settings.enabled !== undefined && settings.enabled !== (endpoint.disabledAt === null)) {
        if (settings.enabled) {
          await this.webhooks.updateEndpoint(manager, id, { disabledAt: null });
          await this.webhooks.resumeDeliveries(manager, id, new Date(Date.now() - RETRY_WINDOW_MS));
        } else {
          await this.webhooks.updateEndpoint(manager, id, { disabledAt: new Date() });
          await this.webhooks.pauseDeliveries(manager, id);
        }
        changedFields.push('disabled_at');
      }
      if (changedFields.length > 0) {
        await this.audit.record(manager, actor, {
          action: changedFields.includes('disabled_at')
            ? enablingAction(settings.enabled!)
            : 'webhook.updated',
          targetType: 'webhook',
          targetId: id,
          companyId: endpoint.companyId,
          changedFields,
        });
      }
      return this.webhooks.reloadEndpoint(manager, id);
    });
  }

  /** Refuses a URL that may not receive webhooks (CONTRACT §5): by its form, then by what its host resolves to. */
  private async assertDestination(url: string): Promise<void> {
    const urlError = webhookUrlFormError(url) ?? (await webhookHostError(url, this.allowPrivate));
    if (urlError) throw fieldError('url', urlError);
  }

  /**
   * Gives an endpoint a new secret, returned here only, and keeps the current one signing beside it until the
   * overlap's end (at most 7 days ahead), so receivers switch without missing a delivery. A rotation during an
   * overlap drops the secret before the current one.
   */
  async rotateSecret(
    actor: Actor,
    id: number,
    rotation: SecretRotation,
    scope: EndpointScope = {},
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const now = Date.now();
    const expiresAt = rotation.previousSecretExpiresAt ?? new Date(now + DEFAULT_ROTATION_OVERLAP_MS);
    if (expiresAt.getTime() > now + MAX_ROTATION_OVERLAP_MS) {
      throw fieldError('previous_secret_expires_at', 'The previous secret can sign for at most 7 days.');
    }
    const secret = chosenSecret(rotation.secret);
    return this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpointForUpdate(manager, id, scope);
      if (!endpoint) throw new WebhookNotFoundError();
      const overlaps = expiresAt.getTime() > now;
      await this.webhooks.updateEndpoint(manager, id, {
        secret: this.sealer.seal(secret),
        previousSecret: overlaps ? endpoint.secret : null,
        previousSecretExpiresAt: overlaps ? expiresAt : null,
      });
      await this.audit.record(manager, actor, {
        action: 'webhook.secret_rotated',
        targetType: 'webhook',
        targetId: id,
        companyId: endpoint.companyId,
        changedFields: ['previous_secret_expires_at', 'secret'],
      });
      return { endpoint: await this.webhooks.reloadEndpoint(manager, id), secret };
    });
  }

  /**
   * Deletes an endpoint: nothing more is sent to it, its waiting deliveries are cancelled and its attempts in
   * flight ended; from then on it is missing (404) on every route, its delivery log too. Its deliveries stay in
   * the orders' timelines.
   */
  remove(actor: Actor, id: number, scope: EndpointScope = {}): Promise<WebhookEndpoint> {
    return this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpointForUpdate(manager, id, scope);
      if (!endpoint) throw new WebhookNotFoundError();
      await this.webhooks.deactivate(manager, id, { deletedAt: new Date() });
      await this.audit.record(manager, actor, {
        action: 'webhook.deleted',
        targetType: 'webhook',
        targetId: id,
        companyId: endpoint.companyId,
        changedFields: ['active', 'deleted_at'],
      });
      return this.webhooks.reloadEndpoint(manager, id);
    });
  }

  /**
   * An endpoint's deliveries, newest first, those the filter keeps, each with its attempts' outcomes: three
   * statements whatever the page size.
   */
  async deliveries(
    id: number,
    offset: number,
    limit: number,
    filter: DeliveryLogFilter = {},
  ): Promise<DeliveryWithAttempts[]> {
    if (!(await this.webhooks.findEndpoint(id))) throw new WebhookNotFoundError();
    const eventId = filter.eventId === undefined ? undefined : eventRowId(filter.eventId);
    if (eventId === null)
      throw fieldError('event_id', 'The event id must be evt_ and a number, as in webhook-id.');
    return this.withLog(await this.webhooks.listDeliveries(id, offset, limit, { ...filter, eventId }));
  }

  /** One delivery of an endpoint with every attempt in full: what was sent and what came back. */
  async delivery(endpointId: number, deliveryId: string): Promise<DeliveryDetail> {
    const endpoint = await this.webhooks.findEndpoint(endpointId);
    if (!endpoint) throw new WebhookNotFoundError();
    const delivery = await this.webhooks.findDelivery(endpointId, deliveryId);
    if (!delivery) throw new DeliveryNotFoundError();
    const [logged] = await this.withLog([delivery], true);
    return { ...logged, companyId: endpoint.companyId };
  }

  /** The deliveries with their attempts (in full with `exchange`). */
  private async withLog(deliveries: WebhookDelivery[], exchange = false): Promise<DeliveryWithAttempts[]> {
    const attempts = groupBy(
      await this.webhooks.attemptsOf(
        deliveries.map((row) => row.id),
        exchange,
      ),
      (row) => row.deliveryId,
    );
    return deliveries.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] }));
  }

  /**
   * The deliveries of the given events (at most `perEvent` of each), with their endpoint's URL and last attempt,
   * grouped by event id: one statement whatever the number of events.
   */
  async deliveriesOfEvents(eventIds: string[], perEvent: number): Promise<Map<string, EventDeliveryRow[]>> {
    return groupBy(await this.webhooks.deliveriesOfEvents(eventIds, perEvent), (row) => row.event_id);
  }

  /**
   * Sends a delivery that has not succeeded again now, with the same webhook-id and a fresh timestamp and
   * signature, and returns it with every attempt in full, the new one last. If the attempt fails, a pending delivery keeps
   * its automatic schedule and a given-up one stays given up. Refused while an attempt of it is in flight (a
   * dispatcher's or another hand retry's), once it succeeded, or when its endpoint no longer receives; a
   * deleted endpoint's delivery is missing.
   */
  async retry(actor: Actor, endpointId: number, deliveryId: string): Promise<DeliveryDetail> {
    const claimed = await this.unitOfWork.transaction(async (manager) => {
      const endpoint = await this.webhooks.findEndpoint(endpointId, manager);
      if (!endpoint) throw new WebhookNotFoundError();
      const delivery = await this.webhooks.findDeliveryForUpdate(manager, endpointId, deliveryId);
      if (!delivery) throw new DeliveryNotFoundError();
      const refusal = retryRefusal(delivery, endpoint);
      if (refusal) throw new DeliveryNotRetryableError(refusal);
      const inFlight = await this.queue.claimForRetry(manager, deliveryId, this.dispatcher.leaseMs);
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
      return { inFlight, companyId: endpoint.companyId };
    });
    await this.dispatcher.sendByHand(claimed.inFlight);
    const [logged] = await this.withLog([(await this.webhooks.findDelivery(endpointId, deliveryId))!], true);
    return { ...logged, companyId: claimed.companyId };
  }
}

/** Why a delivery may not be sent again by hand whatever is in flight, or null when it may. */
function retryRefusal(delivery: WebhookDelivery, endpoint: WebhookEndpoint): string | null {
  if (delivery.status === 'succeeded') return 'This delivery has already succeeded: it is not sent again.';
  if (!endpoint.active) {
    return 'This endpoint no longer receives deliveries (it answered 410 Gone): register it again.';
  }
  return endpoint.disabledAt === null
    ? null
    : 'This endpoint is disabled: enable it, and its paused deliveries are sent at once.';
}

/** The audit action of a change that disabled or enabled an endpoint (and maybe changed its event types). */
const enablingAction = (enabled: boolean): string => (enabled ? 'webhook.enabled' : 'webhook.disabled');

/** The secret asked for, checked, or a new one. */
function chosenSecret(asked: string | undefined): string {
  if (asked !== undefined && !isValidWebhookSecret(asked)) {
    throw fieldError('secret', 'The secret must be whsec_ and the base64 of 24 to 64 bytes.');
  }
  return asked ?? generateWebhookSecret();
}

/** Whether two event type settings name the same types (null: all). */
function sameTypes(wanted: string[] | null, current: string[] | null): boolean {
  if (wanted === null || current === null) return wanted === current;
  return wanted.length === current.length && wanted.every((type) => current.includes(type));
}
