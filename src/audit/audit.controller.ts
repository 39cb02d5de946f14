import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import { AuditService } from './audit.service';
import { AuditEventResponse, toAuditEventResponse } from './dto/audit-event.response';
import { ListAuditEventsQuery } from './dto/list-audit-events.query';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/audit-events')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly formats: ApiFormats,
  ) {}

  /** Who changed what, when: newest first, optionally for one company or one token. */
  @Get()
  @ApiOperation({ operationId: 'listAuditEvents', summary: 'List audit events' })
  @ApiPageResponse(AuditEventResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @Query() query: ListAuditEventsQuery,
    @Req() request: Request,
  ): Promise<Page<AuditEventResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.audit.list(
      { companyId: query.company_id, tokenId: query.token_id },
      offset,
      limit,
    );
    return this.formats.page(
      rows.map((event) => toAuditEventResponse(event, this.formats)),
      query,
      request,
    );
  }
}
