import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { bigIdParam, idParam } from '../platform/http/id-param.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, PageQuery, pageWindow } from '../kernel/pagination';
import { CreateWebhookDto, ListWebhooksQuery } from './dto/webhook.dto';
import {
  CreatedWebhookResponse,
  toDeliveryResponse,
  toWebhookResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
} from './dto/webhook.response';
import { DeliveryNotFoundError, WebhookNotFoundError } from './webhooks.errors';
import { WebhooksService } from './webhooks.service';

const webhookIdParam = () => idParam(() => new WebhookNotFoundError());

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
   * Registers an endpoint for a company's events. The response is the only time its secret is shown; hand
   * it to the partner, who verifies every delivery with it.
   */
  @Post()
  @ApiOperation({ operationId: 'createWebhook', summary: 'Register a webhook endpoint' })
  @ApiErrorResponses(400, 401, 403, 429)
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

  /** Deletes an endpoint: nothing more is sent to it and waiting deliveries are cancelled. */
  @Delete(':id')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint' })
  @ApiErrorResponses(401, 403, 404, 429)
  async remove(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.remove(actor, id), this.formats);
  }

  /** The delivery log of an endpoint (deleted ones too), newest first, with every attempt. */
  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'List the deliveries of a webhook endpoint',
  })
  @ApiPageResponse(WebhookDeliveryResponse)
  @ApiErrorResponses(400, 401, 403, 404, 429)
  async deliveries(
    @Param('id', webhookIdParam()) id: number,
    @Query() query: PageQuery,
    @Req() request: Request,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.webhooks.deliveries(id, offset, limit);
    return this.formats.page(
      rows.map(({ delivery, attempts }) => toDeliveryResponse(delivery, attempts, this.formats)),
      query,
      request,
    );
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery that has not succeeded again now',
    description:
      'Sends a delivery that has not succeeded again at once, whether it is waiting for its next automatic ' +
      'attempt or was given up, with the same `webhook-id` and a fresh `webhook-timestamp` and ' +
      '`webhook-signature`, and answers with the delivery, the new attempt last in its log. If the attempt ' +
      'succeeds, the delivery is succeeded and no automatic attempt follows; if it fails, a pending delivery ' +
      'keeps its automatic schedule and a given-up one stays given up. Refused with 409: a delivery that ' +
      'succeeded; one with an attempt in flight at that moment (the dispatcher or another retry is sending ' +
      "it); one whose endpoint was deleted or answered 410 Gone. Another endpoint's delivery is 404.",
  })
  @ApiParam({
    name: 'id',
    description: 'The webhook endpoint.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 3 },
  })
  @ApiParam({
    name: 'deliveryId',
    description: 'A delivery of this endpoint, as its delivery log lists it.',
    schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 981 },
  })
  @ApiOkResponse({ type: WebhookDeliveryResponse, description: 'The delivery after the new attempt.' })
  @ApiErrorResponses(401, 403, 404, 409, 429)
  async retry(
    @CurrentActor() actor: Actor,
    @Param('id', webhookIdParam()) id: number,
    @Param('deliveryId', bigIdParam(() => new DeliveryNotFoundError())) deliveryId: string,
  ): Promise<WebhookDeliveryResponse> {
    const { delivery, attempts } = await this.webhooks.retry(actor, id, deliveryId);
    return toDeliveryResponse(delivery, attempts, this.formats);
  }
}
