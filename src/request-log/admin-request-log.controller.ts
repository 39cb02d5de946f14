import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Roles } from '../kernel/access/access.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { AdminRequestWindowQuery, ListAdminRequestsQuery, REQUEST_ID_PARAM } from './dto/list-requests.query';
import {
  RequestErrorGroupsResponse,
  RequestLogDetailResponse,
  RequestLogEntryResponse,
} from './dto/request-log.response';
import { RequestLogService } from './request-log.service';

/** Every company's request log (CONTRACT §4.12), for an administrator answering a partner's question. */
@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/requests')
export class AdminRequestLogController {
  constructor(
    private readonly log: RequestLogService,
    private readonly formats: ApiFormats,
  ) {}

  /** Every company's requests (or one company's), newest first, with the partner routes' filters. */
  @Get()
  @ApiOperation({ operationId: 'listAdminRequests', summary: "List the companies' requests" })
  @ApiPageResponse(RequestLogEntryResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @Query() query: ListAdminRequestsQuery,
    @Req() request: Request,
  ): Promise<Page<RequestLogEntryResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.log.list(query, query.company_id, offset, limit);
    return this.formats.page(rows, query, request);
  }

  /** The failed requests of the window, grouped by company, route, status and message, the largest first. */
  @Get('errors')
  @ApiOperation({ operationId: 'listAdminRequestErrors', summary: "The companies' failed requests, grouped" })
  @ApiOkResponse({ type: RequestErrorGroupsResponse })
  @ApiErrorResponses(400, 401, 403, 429)
  async errors(@Query() query: AdminRequestWindowQuery): Promise<RequestErrorGroupsResponse> {
    return { data: await this.log.errors(query, query.company_id) };
  }

  /** Any company's request by its X-Request-Id (the newest of that id), with what it caused. */
  @Get(':request_id')
  @ApiOperation({ operationId: 'getAdminRequest', summary: "Get a company's request" })
  @ApiParam(REQUEST_ID_PARAM)
  @ApiOkResponse({ type: RequestLogDetailResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  get(@Param('request_id') requestId: string): Promise<RequestLogDetailResponse> {
    return this.log.get(requestId);
  }
}
