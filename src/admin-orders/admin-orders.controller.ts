import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Roles } from '../kernel/access/access.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import { ApiFormats } from '../platform/formats/api-formats';
import { idParam } from '../platform/http/id-param.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { OrderNotFoundError } from '../orders/orders.errors';
import { AdminOrdersService } from './admin-orders.service';
import { AdminOrderListItemResponse, AdminOrderResponse } from './dto/admin-order.response';
import { ListAdminOrdersQuery } from './dto/list-admin-orders.query';

/** Orders across companies, for an administrator on a partner's call (CONTRACT §6). Read only. */
@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/orders')
export class AdminOrdersController {
  constructor(
    private readonly orders: AdminOrdersService,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Every company's orders, newest first (created_at, then id), 25 at most per page; filters combine with AND.
   * Each order is the object GET /order lists to its partner, with its company.
   */
  @Get()
  @ApiOperation({ operationId: 'listAdminOrders', summary: 'Find orders across companies' })
  @ApiPageResponse(AdminOrderListItemResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @Query() query: ListAdminOrdersQuery,
    @Req() request: Request,
  ): Promise<Page<AdminOrderListItemResponse>> {
    const { offset, limit } = pageWindow(query);
    return this.formats.page(await this.orders.list(query, offset, limit), query, request);
  }

  /**
   * One order of any company: the object GET /order/{id} returns to its partner, its company, and its
   * timeline, oldest first: every change from the audit trail (who, with which token and role, which fields)
   * and every event with the state of each of its deliveries. Bounded: the newest 100 changes and 100 events,
   * at most 10 deliveries each; `timeline_truncated` says when older ones were left out.
   */
  @Get(':id')
  @ApiOperation({ operationId: 'getAdminOrder', summary: 'Get an order with its company and timeline' })
  @ApiParam({
    name: 'id',
    description: 'The order id.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 123 },
  })
  @ApiOkResponse({ type: AdminOrderResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  get(@Param('id', idParam(() => new OrderNotFoundError())) id: number): Promise<AdminOrderResponse> {
    return this.orders.get(id);
  }
}
