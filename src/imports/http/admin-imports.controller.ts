import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Roles } from '../../kernel/access/access.decorators';
import { type Page, pageWindow } from '../../kernel/pagination';
import { ApiFormats } from '../../platform/formats/api-formats';
import { idParam } from '../../platform/http/id-param.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../../platform/openapi/openapi.decorators';
import { AdminImportResponse } from '../dto/import.response';
import { ListAdminImportsQuery } from '../dto/list-imports.query';
import { ImportNotFoundError } from '../imports.errors';
import { ImportsService } from '../imports.service';
import { IMPORT_DOCS } from './import-docs';
import { sendResults } from './send-results';

/** Every company's bulk imports, for an administrator (CONTRACT §4.11). Read only. */
@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/orders/imports')
export class AdminImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly formats: ApiFormats,
  ) {}

  /** Every company's imports (or one company's), newest first, 25 at most per page. */
  @Get()
  @ApiOperation({ operationId: 'listAdminImports', summary: "List every company's imports" })
  @ApiPageResponse(AdminImportResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @Query() query: ListAdminImportsQuery,
    @Req() request: Request,
  ): Promise<Page<AdminImportResponse>> {
    const { offset, limit } = pageWindow(query);
    return this.formats.page(
      await this.imports.listAny(query.company_id ?? null, offset, limit),
      query,
      request,
    );
  }

  /** One import of any company, with its company. */
  @Get(':id')
  @ApiOperation({ operationId: 'getAdminImport', summary: 'Get an import of any company' })
  @ApiParam(IMPORT_DOCS.idParam)
  @ApiOkResponse({ type: AdminImportResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  get(@Param('id', idParam(() => new ImportNotFoundError())) id: number): Promise<AdminImportResponse> {
    return this.imports.getAny(id);
  }

  /** The results of an import of any company, as its partner reads them (NDJSON, in line order). */
  @Get(':id/results')
  @ApiOperation({ operationId: 'getAdminImportResults', summary: "Stream any import's results (NDJSON)" })
  @ApiParam(IMPORT_DOCS.idParam)
  @ApiProduces('application/x-ndjson')
  @ApiResponse(IMPORT_DOCS.resultsResponse)
  @ApiErrorResponses(401, 403, 404, 429)
  async results(
    @Param('id', idParam(() => new ImportNotFoundError())) id: number,
    @Res() response: Response,
  ): Promise<void> {
    await sendResults(response, await this.imports.results(null, id));
  }
}
