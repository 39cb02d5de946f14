import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CallerCompany, CurrentActor, Roles } from '../kernel/access/access.decorators';
import { type Page, PageQuery, pageWindow } from '../kernel/pagination';
import { ApiFormats } from '../platform/formats/api-formats';
import { bigIdParam } from '../platform/http/id-param.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import {
  ApiEndpointLimitConflict,
  ENDPOINT_SETTINGS,
  SECRET_ROTATION,
  toSecretRotation,
  toSettings,
} from './dto/endpoint-settings';
import {
  CreatePartnerWebhookDto,
  deliveryLogFilter,
  ListWebhookDeliveriesQuery,
  RotateWebhookSecretDto,
  UpdateWebhookDto,
} from './dto/webhook.dto';
import {
  CreatedWebhookResponse,
  RotatedWebhookSecretResponse,
  toDeliveryResponse,
  toWebhookResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
} from './dto/webhook.response';
import { webhookIdParam } from './webhook-id.pipe';
import { DeliveryNotFoundError } from './webhooks.errors';
import { WebhooksService } from './webhooks.service';

const ENDPOINT_PARAM = {
  name: 'id',
  description: "One of your company's webhook endpoints (another company's is 404, like a missing one).",
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 3 },
} as const;

/**
 * A partner's own webhook endpoints (CONTRACT §6): the admin routes' service, scoped to the token's company,
 * so another company's endpoint is missing (404) on every route. Writes are POST, PATCH and DELETE: a
 * read-only token is refused them like any other write.
 */
@ApiTags('webhooks')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2/webhooks')
export class PartnerWebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Registers an endpoint for your company's events, on a public http(s) address: at most 20 per company
   * (deleted ones do not count; a 21st is 409). The response is the only time its secret is shown: verify every
   * delivery's `webhook-signature` with it.
   */
  @Post()
  @ApiOperation({ operationId: 'createPartnerWebhook', summary: 'Register a webhook endpoint' })
  @ApiErrorResponses(400, 401, 403, 413, 429)
  @ApiEndpointLimitConflict()
  async create(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Body() body: CreatePartnerWebhookDto,
  ): Promise<CreatedWebhookResponse> {
    const { endpoint, secret } = await this.webhooks.create(actor, {
      companyId,
      url: body.url,
      secret: body.secret,
    });
    return { ...toWebhookResponse(endpoint, this.formats), secret };
  }

  /** Your company's endpoints that are not deleted, by id. Secrets are never shown. */
  @Get()
  @ApiOperation({ operationId: 'listPartnerWebhooks', summary: 'List your webhook endpoints' })
  @ApiPageResponse(WebhookResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CallerCompany() companyId: number,
    @Query() query: PageQuery,
    @Req() request: Request,
  ): Promise<Page<WebhookResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.webhooks.list({ companyId }, offset, limit);
    return this.formats.page(
      rows.map((endpoint) => toWebhookResponse(endpoint, this.formats)),
      query,
      request,
    );
  }

  /** One of your endpoints with its settings (a deleted one is 404). Its secret is never shown. */
  @Get(':id')
  @ApiOperation({ operationId: 'getPartnerWebhook', summary: 'Get one of your webhook endpoints' })
  @ApiParam(ENDPOINT_PARAM)
  @ApiErrorResponses(401, 403, 404, 429)
  async get(
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.get(id, { companyId }), this.formats);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updatePartnerWebhook',
    summary: "Change your webhook endpoint's URL or event types, disable or enable it",
    description: ENDPOINT_SETTINGS,
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async update(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    const settings = toSettings(body);
    return toWebhookResponse(await this.webhooks.update(actor, id, settings, { companyId }), this.formats);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotatePartnerWebhookSecret',
    summary: "Rotate your webhook endpoint's secret",
    description: SECRET_ROTATION,
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiOkResponse({ type: RotatedWebhookSecretResponse, description: 'The endpoint, with its new secret.' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async rotateSecret(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<RotatedWebhookSecretResponse> {
    const rotation = toSecretRotation(body, this.formats);
    const { endpoint, secret } = await this.webhooks.rotateSecret(actor, id, rotation, { companyId });
    return { ...toWebhookResponse(endpoint, this.formats), secret };
  }

  /**
   * Deletes one of your endpoints: nothing more is sent to it, its waiting deliveries are cancelled and its
   * attempts in flight ended. From then on the endpoint, its delivery log and its deliveries are 404.
   */
  @Delete(':id')
  @ApiOperation({ operationId: 'deletePartnerWebhook', summary: 'Delete one of your webhook endpoints' })
  @ApiParam(ENDPOINT_PARAM)
  @ApiErrorResponses(401, 403, 404, 429)
  async remove(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.remove(actor, id, { companyId }), this.formats);
  }

  /**
   * The delivery log of one of your endpoints (a deleted one is 404), newest first, with every attempt; filtered by
   * status, event type and event id (the `webhook-id` your receiver saw) as the administrators' log is.
   */
  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listPartnerWebhookDeliveries',
    summary: 'List the deliveries of one of your webhook endpoints',
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiPageResponse(WebhookDeliveryResponse)
  @ApiErrorResponses(400, 401, 403, 404, 429)
  async deliveries(
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
    @Query() query: ListWebhookDeliveriesQuery,
    @Req() request: Request,
  ): Promise<Page<WebhookDeliveryResponse>> {
    await this.webhooks.get(id, { companyId });
    const { offset, limit } = pageWindow(query);
    const rows = await this.webhooks.deliveries(id, offset, limit, deliveryLogFilter(query));
    return this.formats.page(
      rows.map(({ delivery, attempts }) => toDeliveryResponse(delivery, attempts, this.formats)),
      query,
      request,
    );
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'retryPartnerWebhookDelivery',
    summary: 'Send a delivery that has not succeeded again now',
    description:
      'As the admin route does: sends the delivery again at once with the same `webhook-id` and a fresh ' +
      'timestamp and signature, and answers with the delivery, the new attempt last in its log. 409 when it ' +
      'succeeded already, an attempt of it is in flight, or its endpoint is gone or disabled; 404 when its ' +
      'endpoint was deleted.',
  })
  @ApiParam(ENDPOINT_PARAM)
  @ApiParam({
    name: 'deliveryId',
    description: 'A delivery of this endpoint, as its delivery log lists it.',
    schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 981 },
  })
  @ApiOkResponse({ type: WebhookDeliveryResponse, description: 'The delivery after the new attempt.' })
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async retry(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', webhookIdParam()) id: number,
    @Param('deliveryId', bigIdParam(() => new DeliveryNotFoundError())) deliveryId: string,
  ): Promise<WebhookDeliveryResponse> {
    await this.webhooks.get(id, { companyId });
    const { delivery, attempts } = await this.webhooks.retry(actor, id, deliveryId);
    return toDeliveryResponse(delivery, attempts, this.formats);
  }
}
