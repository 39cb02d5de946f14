import { Body, Controller, Get, HttpCode, Param, Patch, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Actor } from '../../kernel/access/actor';
import { CurrentActor, Roles } from '../../kernel/access/access.decorators';
import { ApiFormats } from '../../platform/formats/api-formats';
import { setVersionEtag } from '../../kernel/if-match';
import { IfMatchVersion } from '../../platform/http/if-match.decorator';
import { ApiErrorResponses, ApiPageResponse, ETAG_HEADER } from '../../platform/openapi/openapi.decorators';
import { type Page, pageWindow } from '../../kernel/pagination';
import { IF_MATCH, orderIdParam } from './order-params.decorators';
import {
  ApiTrackingNumberParam,
  DeliveryErrorDto,
  DetailedStatusDto,
  LogisticsPatchDto,
  TrackingDto,
} from './dto/logistics.dto';
import { LogisticsOrderResponse } from '../dto/logistics-order.response';
import { QueueQuery } from './dto/queue.query';
import { LogisticsService } from '../application/logistics.service';

/** The fulfilment partner's API (CONTRACT §7): the work queue, and the facts that move orders through their states. */
@ApiTags('logistics')
@ApiBearerAuth()
@Roles('logistics')
@Controller('api/v2/logistics/orders')
export class LogisticsController {
  constructor(
    private readonly logistics: LogisticsService,
    private readonly formats: ApiFormats,
  ) {}

  /** The work queue: orders in a state (PLACED by default), oldest first, never test orders. */
  @Get()
  @ApiOperation({ operationId: 'listLogisticsQueue', summary: 'List the work queue' })
  @ApiPageResponse(LogisticsOrderResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async queue(@Query() query: QueueQuery, @Req() request: Request): Promise<Page<LogisticsOrderResponse>> {
    const { offset, limit } = pageWindow(query);
    return this.formats.page(await this.logistics.queue(query.state, offset, limit), query, request);
  }

  /** PLACED → SENT_TO_LOGISTICS. Repeating it changes nothing; a test or cancelled order is a 409. */
  @Post(':id/sent')
  @HttpCode(200)
  @ApiOperation({ operationId: 'markOrderSent', summary: 'Mark an order sent to logistics' })
  @ApiHeader(IF_MATCH)
  @ApiOkResponse({ type: LogisticsOrderResponse, headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 429)
  async sent(
    @CurrentActor() actor: Actor,
    @Param('id', orderIdParam()) id: number,
    @Res({ passthrough: true }) response: Response,
    @IfMatchVersion() version: number | undefined,
  ): Promise<LogisticsOrderResponse> {
    return this.respond(response, await this.logistics.markSent(actor, id, version));
  }

  /**
   * Creates (201) or replaces (200) the tracking with this number. A delivery_date moves the order to
   * DELIVERED, else a dispatch_date to DISPATCHED; a later tracking never moves an order back.
   */
  @Put(':id/trackings/:trackingNumber')
  @ApiOperation({ operationId: 'putTracking', summary: 'Create or replace a tracking' })
  @ApiTrackingNumberParam()
  @ApiHeader(IF_MATCH)
  @ApiOkResponse({
    type: LogisticsOrderResponse,
    description: 'The tracking was replaced.',
    headers: ETAG_HEADER,
  })
  @ApiCreatedResponse({
    type: LogisticsOrderResponse,
    description: 'The tracking was created.',
    headers: ETAG_HEADER,
  })
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 429)
  async putTracking(
    @CurrentActor() actor: Actor,
    @Param('id', orderIdParam()) id: number,
    @Param('trackingNumber') trackingNumber: string,
    @Body() body: TrackingDto,
    @Res({ passthrough: true }) response: Response,
    @IfMatchVersion() version: number | undefined,
  ): Promise<LogisticsOrderResponse> {
    const { created, order } = await this.logistics.putTracking(actor, id, trackingNumber, body, version);
    response.status(created ? 201 : 200);
    return this.respond(response, order);
  }

  /** Appends a detailed status; the order shows the latest by status_date. */
  @Post(':id/detailed-statuses')
  @ApiOperation({ operationId: 'addDetailedStatus', summary: 'Add a detailed status' })
  @ApiHeader(IF_MATCH)
  @ApiCreatedResponse({ type: LogisticsOrderResponse, headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 429)
  async addDetailedStatus(
    @CurrentActor() actor: Actor,
    @Param('id', orderIdParam()) id: number,
    @Body() body: DetailedStatusDto,
    @Res({ passthrough: true }) response: Response,
    @IfMatchVersion() version: number | undefined,
  ): Promise<LogisticsOrderResponse> {
    return this.respond(response, await this.logistics.addDetailedStatus(actor, id, body, version));
  }

  /** Records a delivery error; resolution Cancel cancels an order not yet delivered (409 after delivery). */
  @Post(':id/delivery-errors')
  @ApiOperation({ operationId: 'addDeliveryError', summary: 'Record a delivery error' })
  @ApiHeader(IF_MATCH)
  @ApiCreatedResponse({ type: LogisticsOrderResponse, headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 429)
  async addDeliveryError(
    @CurrentActor() actor: Actor,
    @Param('id', orderIdParam()) id: number,
    @Body() body: DeliveryErrorDto,
    @Res({ passthrough: true }) response: Response,
    @IfMatchVersion() version: number | undefined,
  ): Promise<LogisticsOrderResponse> {
    return this.respond(response, await this.logistics.addDeliveryError(actor, id, body, version));
  }

  /** Sets the serial number and/or the final completion date (which completes a DELIVERED order; 409 before). */
  @Patch(':id')
  @ApiOperation({ operationId: 'updateLogisticsData', summary: 'Set the serial number or completion' })
  @ApiHeader(IF_MATCH)
  @ApiOkResponse({ type: LogisticsOrderResponse, headers: ETAG_HEADER })
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 429)
  async patch(
    @CurrentActor() actor: Actor,
    @Param('id', orderIdParam()) id: number,
    @Body() body: LogisticsPatchDto,
    @Res({ passthrough: true }) response: Response,
    @IfMatchVersion() version: number | undefined,
  ): Promise<LogisticsOrderResponse> {
    return this.respond(response, await this.logistics.patch(actor, id, body, version));
  }

  private respond(response: Response, order: LogisticsOrderResponse): LogisticsOrderResponse {
    setVersionEtag(response, order.version);
    return order;
  }
}
