import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CallerCompany, Roles } from '../kernel/access/access.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { ListRequestsQuery, RequestWindowQuery, REQUEST_ID_PARAM } from './dto/list-requests.query';
import {
  RequestErrorGroupsResponse,
  RequestLogDetailResponse,
  RequestLogEntryResponse,
} from './dto/request-log.response';
import { RequestLogService } from './request-log.service';

/**
 * Your company's request log (CONTRACT §4.12): every request made with its tokens in the last 14 days, what it
 * was answered, and what it caused. Read-only tokens read it too. A request appears about a second after it
 * ended (it is written in batches).
 */
@ApiTags('requests')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2/requests')
export class RequestLogController {
  constructor(
    private readonly log: RequestLogService,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Your company's requests, newest first, 25 at most per page; filters combine with AND. Never a request body
   * or a token: for a 4xx or 5xx, the body it was answered with.
   */
  @Get()
  @ApiOperation({ operationId: 'listRequests', summary: 'List your requests' })
  @ApiPageResponse(RequestLogEntryResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CallerCompany() companyId: number,
    @Query() query: ListRequestsQuery,
    @Req() request: Request,
  ): Promise<Page<RequestLogEntryResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.log.list(query, companyId, offset, limit);
    return this.formats.page(rows, query, request);
  }

  /**
   * Your failed requests (4xx and 5xx) of the window (`from`, `to`; the 14 days kept when unset), grouped by
   * route, status and message, the largest groups first (at most 100), each with its newest request's id.
   */
  @Get('errors')
  @ApiOperation({ operationId: 'listRequestErrors', summary: 'Your failed requests, grouped' })
  @ApiOkResponse({ type: RequestErrorGroupsResponse })
  @ApiErrorResponses(400, 401, 403, 429)
  async errors(
    @CallerCompany() companyId: number,
    @Query() query: RequestWindowQuery,
  ): Promise<RequestErrorGroupsResponse> {
    return { data: await this.log.errors(query, companyId) };
  }

  /**
   * One of your requests by its X-Request-Id (the newest, if your client sent one id twice), with what it caused:
   * the order it placed, changed or read, and the events it wrote with the state of their webhook deliveries.
   */
  @Get(':request_id')
  @ApiOperation({ operationId: 'getRequest', summary: 'Get one of your requests' })
  @ApiParam(REQUEST_ID_PARAM)
  @ApiOkResponse({ type: RequestLogDetailResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  get(
    @CallerCompany() companyId: number,
    @Param('request_id') requestId: string,
  ): Promise<RequestLogDetailResponse> {
    return this.log.get(requestId, companyId);
  }
}
