import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Actor } from '../../kernel/access/actor';
import { CallerCompany, CurrentActor, Roles } from '../../kernel/access/access.decorators';
import { ApiFormats } from '../../platform/formats/api-formats';
import { setVersionEtag } from '../../kernel/if-match';
import { IfMatchVersion } from '../../platform/http/if-match.decorator';
import { notePlacedOrder } from '../../platform/http/request-context';
import { ApiErrorResponses, ApiPageResponse, ETAG_HEADER } from '../../platform/openapi/openapi.decorators';
import { pageJson, pageWindow } from '../../kernel/pagination';
import { ListOrdersQuery } from './dto/list-orders.query';
import {
  OrderListItemResponse,
  OrderResponse,
  OrderWriteResponse,
  toOrderSummary,
} from '../dto/order.response';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { PlaceOrderDto } from './dto/place-order.dto';
import { UpdateOrderDto } from './dto/update-order.dto';
import { OrdersService } from '../application/orders.service';
import { IF_MATCH, orderIdParam } from './order-params.decorators';

/** The partner's orders (spec §4.1–4.3, 4.6). Every query is scoped by the token's company. */
@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly formats: ApiFormats,
  ) {}

  /** Places an order. Every failing field is named in `errors`; nothing is stored unless all pass. */
  @Post('order')
  @ApiOperation({ operationId: 'placeOrder', summary: 'Place an order' })
  @ApiBody({ type: PlaceOrderDto })
  @ApiCreatedResponse({
    type: OrderWriteResponse,
    example: {
      message: 'Order created.',
      orders: [{ order_id: '123', order_ref: 'SK-0000123', order_type: 'REGULAR' }],
    },
  })
  @Idempotent()
  @ApiErrorResponses(400, 401, 403, 409, 413, 422, 429)
  async place(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Body() body: unknown,
  ): Promise<OrderWriteResponse> {
    const order = await this.orders.place(actor, companyId, body);
    notePlacedOrder(order.id);
    return { message: 'Order created.', orders: [toOrderSummary(order, 'string')] };
  }

  /**
   * The company's orders, newest first, 25 at most per page; filters combine with AND. The orders' JSON is
   * PostgreSQL's, sent as it is (order-json.ts).
   */
  @Get('order')
  @ApiOperation({ operationId: 'listOrders', summary: 'List orders' })
  @ApiPageResponse(OrderListItemResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CallerCompany() companyId: number,
    @Query() query: ListOrdersQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const { offset, limit } = pageWindow(query);
    const orders = await this.orders.list(companyId, query, offset, limit);
    const page = this.formats.page(orders, query, request);
    response.type('application/json');
    return pageJson(page);
  }

  /** The same list at the path the spec's examples also use (spec §4.2). */
  @Get('orders')
  @ApiOperation({ operationId: 'listOrdersAtOrdersPath', summary: 'List orders (the /orders spelling)' })
  @ApiPageResponse(OrderListItemResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  listAtOrdersPath(
    @CallerCompany() companyId: number,
    @Query() query: ListOrdersQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    return this.list(companyId, query, request, response);
  }

  /**
   * One order of the company. Another company's order is "not found", exactly like a missing one. The ETag
   * header is the order's version: send it back as If-Match on update or cancel to change only what you read.
   */
  @Get('order/:id')
  @ApiOperation({ operationId: 'getOrder', summary: 'Get an order' })
  @ApiOkResponse({ type: OrderResponse, headers: ETAG_HEADER })
  @ApiErrorResponses(401, 403, 404, 429)
  async get(
    @CallerCompany() companyId: number,
    @Param('id', orderIdParam()) id: number,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const order = await this.orders.getText(companyId, id);
    setVersionEtag(response, order.version);
    response.type('application/json');
    return order.body;
  }

  /** Changes an order that has not been sent to logistics (state PLACED or TEST); 409 afterwards. */
  @Post('order/:id/update')
  @HttpCode(200)
  @ApiOperation({ operationId: 'updateOrder', summary: 'Update an order' })
  @ApiBody({ type: UpdateOrderDto })
  @ApiOkResponse({
    type: OrderWriteResponse,
    headers: ETAG_HEADER,
    example: {
      message: 'Order updated.',
      orders: [{ order_id: 123, order_ref: 'SK-0000123', order_type: 'REGULAR' }],
    },
  })
  @ApiHeader(IF_MATCH)
  @Idempotent()
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 422, 429)
  async update(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', orderIdParam()) id: number,
    @Body() body: unknown,
    @IfMatchVersion() version: number | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderWriteResponse> {
    const order = await this.orders.update(actor, companyId, id, body, version);
    setVersionEtag(response, order.version);
    return { message: 'Order updated.', orders: [toOrderSummary(order, 'integer')] };
  }

  /** Cancels an order that has not been sent to logistics (state PLACED or TEST); 409 afterwards. */
  @Post('order/:id/cancel')
  @HttpCode(200)
  @ApiOperation({ operationId: 'cancelOrder', summary: 'Cancel an order' })
  @ApiOkResponse({
    type: OrderWriteResponse,
    headers: ETAG_HEADER,
    example: {
      message: 'Order cancelled.',
      orders: [{ order_id: 123, order_ref: 'SK-0000123', order_type: 'REGULAR' }],
    },
  })
  @ApiHeader(IF_MATCH)
  @Idempotent()
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 422, 429)
  async cancel(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', orderIdParam()) id: number,
    @IfMatchVersion() version: number | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderWriteResponse> {
    const order = await this.orders.cancel(actor, companyId, id, version);
    setVersionEtag(response, order.version);
    return { message: 'Order cancelled.', orders: [toOrderSummary(order, 'integer')] };
  }
}
