import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { Actor } from '../../kernel/access/actor';
import { CallerCompany, CurrentActor, Roles } from '../../kernel/access/access.decorators';
import { type Page, pageWindow } from '../../kernel/pagination';
import { ApiFormats } from '../../platform/formats/api-formats';
import { idParam } from '../../platform/http/id-param.pipe';
import { REPLAYED_HEADER } from '../../platform/http/idempotency-headers';
import { StreamedBody } from '../../platform/http/request-body';
import { ApiErrorResponses, ApiPageResponse, MessageBody } from '../../platform/openapi/openapi.decorators';
import { ImportResponse, ImportResultResponse } from '../dto/import.response';
import { ImportOrdersQuery } from '../dto/import-orders.query';
import { ListImportsQuery } from '../dto/list-imports.query';
import { ImportNotFoundError } from '../imports.errors';
import { ImportsService } from '../imports.service';
import { IMPORT_DOCS } from './import-docs';
import { importFormatOf, uploadedFile, uploadKeyOf } from './upload';
import { sendResults } from './send-results';

/** A partner's bulk imports (CONTRACT §4.11). Every query is scoped by the token's company. */
@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@ApiExtraModels(ImportResultResponse)
@Controller('api/v2/orders/imports')
export class ImportsController {
  constructor(
    private readonly imports: ImportsService,
    private readonly formats: ApiFormats,
    private readonly config: ConfigService<{ REQUEST_BODY_TIMEOUT_MS: number }, true>,
  ) {}

  /**
   * Uploads a file of up to 100,000 orders (50 MiB), streamed, and answers at once with the import, `queued`:
   * a worker places each line exactly as POST /order would (every rule, event, webhook and audit row), a bad
   * line never stopping the others. `text/csv`: a header row with the export's columns that are placement
   * fields (`country` optional; the export's other columns are ignored, so an export imports again), a cell
   * `'`-prefixed by the export against formulas read without its `'`, an empty cell a field not given.
   * `application/x-ndjson`: one POST /order body per line. A file refused whole (empty, a missing or unknown
   * column, a line over 1 MiB, more than 100,000 orders, not UTF-8, cut off, or silent for 30 s) is a 400 naming
   * it, nothing kept.
   * At most 2 imports of your company run at once; a third waits `queued`. With `Idempotency-Key`, a repeat of
   * the same file (and dry_run) within 24 hours returns the first import with `Idempotent-Replayed: true`.
   */
  @Post()
  @HttpCode(202)
  @StreamedBody()
  @ApiOperation({ operationId: 'uploadOrderImport', summary: 'Import a file of orders (CSV or NDJSON)' })
  @ApiConsumes('text/csv', 'application/x-ndjson')
  @ApiBody({ required: true, schema: IMPORT_DOCS.requestSchema })
  @ApiHeader(IMPORT_DOCS.idempotencyHeader)
  @ApiAcceptedResponse({ type: ImportResponse, headers: IMPORT_DOCS.replayedHeader })
  @ApiResponse({
    status: 415,
    description: 'The file is neither text/csv nor application/x-ndjson, or not UTF-8.',
    content: { 'application/json': { schema: { $ref: getSchemaPath(MessageBody) } } },
  })
  @ApiErrorResponses(400, 401, 403, 409, 422, 429)
  async upload(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Query() query: ImportOrdersQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportResponse> {
    const format = importFormatOf(request);
    const idempotencyKey = uploadKeyOf(request);
    const uploaded = await this.imports.upload({
      actor,
      companyId,
      format,
      dryRun: query.dry_run ?? false,
      idempotencyKey,
      file: uploadedFile(request, this.config.get('REQUEST_BODY_TIMEOUT_MS', { infer: true })),
    });
    if (uploaded.replayed) response.setHeader(REPLAYED_HEADER, 'true');
    return this.imports.present(uploaded.import);
  }

  /** Your company's imports, newest first, 25 at most per page. */
  @Get()
  @ApiOperation({ operationId: 'listImports', summary: 'List imports' })
  @ApiPageResponse(ImportResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CallerCompany() companyId: number,
    @Query() query: ListImportsQuery,
    @Req() request: Request,
  ): Promise<Page<ImportResponse>> {
    const { offset, limit } = pageWindow(query);
    return this.formats.page(await this.imports.list(companyId, offset, limit), query, request);
  }

  /** One import of your company: its state and counts. Another company's import is "not found". */
  @Get(':id')
  @ApiOperation({ operationId: 'getImport', summary: 'Get an import' })
  @ApiParam(IMPORT_DOCS.idParam)
  @ApiOkResponse({ type: ImportResponse })
  @ApiErrorResponses(401, 403, 404, 429)
  get(
    @CallerCompany() companyId: number,
    @Param('id', idParam(() => new ImportNotFoundError())) id: number,
  ): Promise<ImportResponse> {
    return this.imports.get(companyId, id);
  }

  /**
   * The import's results, streamed as NDJSON, one per line of the file in line order: `{"line": 1,
   * "order_id": 123}` for a placed line, `{"line": 2, "errors": {...}}` with exactly the errors map POST
   * /order's 400 gives for a refused one, `{"line": 3}` for a line a dry run would place. While the import
   * runs, the lines done so far.
   */
  @Get(':id/results')
  @ApiOperation({ operationId: 'getImportResults', summary: "Stream an import's results (NDJSON)" })
  @ApiParam(IMPORT_DOCS.idParam)
  @ApiProduces('application/x-ndjson')
  @ApiResponse(IMPORT_DOCS.resultsResponse)
  @ApiErrorResponses(401, 403, 404, 429)
  async results(
    @CallerCompany() companyId: number,
    @Param('id', idParam(() => new ImportNotFoundError())) id: number,
    @Res() response: Response,
  ): Promise<void> {
    await sendResults(response, await this.imports.results(companyId, id));
  }
}
