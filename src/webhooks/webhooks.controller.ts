import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { bigIdParam } from '../platform/http/id-param.pipe';
import { webhookIdParam } from './webhook-id.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import {
  CreateWebhookDto,
  deliveryLogFilter,
  ListWebhookDeliveriesQuery,
  ListWebhooksQuery,
  RotateWebhookSecretDto,
  UpdateWebhookDto,
} from './dto/webhook.dto';
import {
  CreatedWebhookResponse,
  RotatedWebhookSecretResponse,
  toDeliveryDetailResponse,
  toDeliveryResponse,
  WebhookDeliveryDetailResponse,
  toWebhookResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
} from './dto/webhook.response';
import {
  ApiEndpointLimitConflict,
  ENDPOINT_SETTINGS,
  SECRET_ROTATION,
  toSecretRotation,
  toSettings,
} from './dto/endpoint-settings';
import { DeliveryNotFoundError } from './webhooks.errors';
import { WebhooksService } from './webhooks.service';

const deliveryIdParam = () => bigIdParam(() => new DeliveryNotFoundError());

const ENDPOINT_PARAM = {
  name: 'id',
  description: 'The webhook endpoint.',
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 3 },
} as const;
const DELIVERY_PARAM = {
  name: 'deliveryId',
  description: 'A delivery of this endpoint, as its delivery log lists it.',
  schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 981 },
} as const;

/** A company's webhook endpoints (CONTRACT §5, §6). Events are signed with Standard Webhooks headers. */
@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Registers an endpoint for a company's events, one of at most 20 per company (deleted ones do not count; a
   * 21st is 409). The response is the only time its secret is shown; hand it to the partner, who verifies every
   * delivery with it.
   */
  @Post()
  @ApiOperation({ operationId: 'createWebhook', summary: 'Register a webhook endpoint' })
  @ApiErrorResponses(400, 401, 403, 429)
  @ApiEndpointLimitConflict()
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateWebhookDto,
  ): Promise<CreatedWebhookResponse> {
    const { endpoint, secret } = await this.webhooks.create(actor, {
      companyId: body.company_id,
      url: body.url,
      secret: body.secret,
    });
    return { ...toWebhookResponse(endpoint, this.formats), secret };
  }

  /** Lists endpoints that are not deleted, by id, optionally of one company. Secrets are never shown. */
  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: 'List webhook endpoints' })
  @ApiPageResponse(WebhookResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(@Query() query: ListWebhooksQuery, @Req() request: Request): Promise<Page<WebhookResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.webhooks.list({ companyId: query.company_id, url: query.url }, offset, limit);
    return this.formats.page(
      rows.map((endpoint) => toWebhookResponse(endpoint, this.formats)),
      query,
      request,
    );
  }

  /** One endpoint with its settings (a deleted one is 404). Its secret is never shown. */
  @Get(':id')
  @ApiOperation({ operationId: 'getWebhook', summary: 'Get a webhook endpoint' })
  @ApiErrorResponses(401, 403, 404, 429)
  async get(@Param('id', webhookIdParam()) id: number): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.get(id), this.formats);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: "Change a webhook endpoint's URL or event types, disable or enable it",
    description: ENDPOINT_SETTINGS,
  })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async update(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.update(actor, id, toSettings(body)), this.formats);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's secret",
    description: SECRET_ROTATION,
  })
  @ApiOkResponse({ type: RotatedWebhookSecretResponse, description: 'The endpoint, with its new secret.' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async rotateSecret(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<RotatedWebhookSecretResponse> {
    const { endpoint, secret } = await this.webhooks.rotateSecret(
      actor,
      id,
      toSecretRotation(body, this.formats),
    );
    return { ...toWebhookResponse(endpoint, this.formats), secret };
  }

  /**
   * Deletes an endpoint: nothing more is sent to it, its waiting deliveries are cancelled and its attempts in
   * flight ended. From then on the endpoint, its delivery log and its deliveries are 404.
   */
  @Delete(':id')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint' })
  @ApiErrorResponses(401, 403, 404, 429)
  async remove(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.remove(actor, id), this.formats);
  }

  /**
   * The delivery log of an endpoint (a deleted one is 404), newest first, with each attempt's outcome; filtered
   * by status, event type and event id (every given filter applies). The event id filter is how an event a
   * partner names (`webhook-id`) is found: at most one delivery per endpoint has it.
   */
  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'List the deliveries of a webhook endpoint',
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiPageResponse(WebhookDeliveryResponse)
  @ApiErrorResponses(400, 401, 403, 404, 429)
  async deliveries(
    @Param('id', webhookIdParam()) id: number,
    @Query() query: ListWebhookDeliveriesQuery,
    @Req() request: Request,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.webhooks.deliveries(id, offset, limit, deliveryLogFilter(query));
    return this.formats.page(
      rows.map(({ delivery, attempts }) => toDeliveryResponse(delivery, attempts, this.formats)),
      query,
      request,
    );
  }

  /**
   * One delivery with the body it sent and every attempt in full: the headers sent, and the receiver's status,
   * headers and first 4 KiB of body, the duration and the error. Another endpoint's delivery is 404.
   */
  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({
    operationId: 'getWebhookDelivery',
    summary: 'Get a delivery with what every attempt sent and got back',
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiParam(DELIVERY_PARAM)
  @ApiOkResponse({ type: WebhookDeliveryDetailResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  async delivery(
    @Param('id', webhookIdParam()) id: number,
    @Param('deliveryId', deliveryIdParam()) deliveryId: string,
  ): Promise<WebhookDeliveryDetailResponse> {
    return toDeliveryDetailResponse(await this.webhooks.delivery(id, deliveryId), this.formats);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery that has not succeeded again now',
    description:
      'Sends a delivery that has not succeeded again at once, whether it is waiting for its next automatic ' +
      'attempt or was given up, with the same `webhook-id` and a fresh `webhook-timestamp` and ' +
      '`webhook-signature`, and answers with the delivery, every attempt in full, the new one last. If the attempt ' +
      'succeeds, the delivery is succeeded and no automatic attempt follows; if it fails, a pending delivery ' +
      'keeps its automatic schedule and a given-up one stays given up. Refused with 409: a delivery that ' +
      'succeeded; one with an attempt in flight at that moment (the dispatcher or another retry is sending ' +
      "it); one whose endpoint answered 410 Gone or is disabled. A deleted endpoint's delivery, and another " +
      "endpoint's, is 404.",
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiParam(DELIVERY_PARAM)
  @ApiOkResponse({
    type: WebhookDeliveryDetailResponse,
    description: 'The delivery after the new attempt, every attempt in full.',
  })
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async retry(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
    @Param('deliveryId', deliveryIdParam()) deliveryId: string,
  ): Promise<WebhookDeliveryDetailResponse> {
    return toDeliveryDetailResponse(await this.webhooks.retry(actor, id, deliveryId), this.formats);
  }
}
