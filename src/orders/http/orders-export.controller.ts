import { Controller, Get, Head, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { CallerCompany, Roles } from '../../kernel/access/access.decorators';
import { DomainError } from '../../kernel/domain-error';
import { ApiErrorResponses, MessageBody, RATE_HEADERS } from '../../platform/openapi/openapi.decorators';
import { type ExportFormat, ExportOrdersQuery } from './dto/export-orders.query';
import {
  CSV_EXAMPLE,
  EXPORT_MEDIA_TYPES,
  EXPORTS_PER_COMPANY,
  type ExportRefusal,
  OrdersExportService,
} from '../application/orders-export.service';
import { type Download, sendDownload, startDownload } from './send-download';

/**
 * How a refused export is answered, and how long the client is told to wait: a running export takes seconds
 * (429); the direct database session is reopened within seconds of the database answering again (503).
 */
const REFUSALS: Record<ExportRefusal, { code: string; retryAfterSeconds: number }> = {
  company_busy: { code: 'RATE_LIMITED', retryAfterSeconds: 10 },
  instance_busy: { code: 'RATE_LIMITED', retryAfterSeconds: 10 },
  slots_unavailable: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 },
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60 },
  },
};

const DOWNLOAD_HEADERS = {
  'Content-Disposition': {
    description: 'attachment; filename="orders-<UTC date>.csv" (or .ndjson).',
    schema: { type: 'string', example: 'attachment; filename="orders-2026-11-23.csv"' },
  },
};

/** The partner's orders as one file (CONTRACT §4.10). */
@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2')
export class OrdersExportController {
  constructor(private readonly exports: OrdersExportService) {}

  /**
   * The status and headers `GET /orders/export` would answer with these parameters (400 for a bad filter),
   * without running the export: no order is read and none of your company's export slots is taken.
   * Declared before the GET, which would otherwise answer HEAD by running the export.
   */
  @Head('orders/export')
  @ApiOperation({ operationId: 'checkOrdersExport', summary: "The export's headers, without running it" })
  @ApiResponse({
    status: 200,
    description: 'The export would start: its Content-Type and Content-Disposition, no body.',
    headers: DOWNLOAD_HEADERS,
  })
  @ApiErrorResponses(400, 401, 403, 429)
  check(@Query() query: ExportOrdersQuery, @Res() response: Response): void {
    startDownload(response, this.download(query.format));
    response.end();
  }

  /**
   * Every order of your company that matches the filters (the list's, combined with AND), newest first, in one
   * streamed file: no pagination, one request against the rate limit, memory flat on both sides whatever the
   * count. `csv` has a header row and one row per order: the order's scalar fields in the specification's
   * order, then `state`, `test`, `tracking_numbers` (space-separated), `delivered_at` (latest delivery date)
   * and `updated_at`; a field holding a comma, a quote or a line break of any kind (CRLF, LF, CR) is quoted,
   * so any standard reader sees one record per order; a text cell starting with `=`, `+`, `-`, `@`, tab or CR
   * (or their full-width forms) is prefixed with `'` so that spreadsheets never run it as a formula. `ndjson`
   * has one list item of `GET /orders` per line. A transfer that breaks off midway ends without its final
   * chunk: retry it.
   *
   * Your company runs at most 2 exports at once, counted across every instance of the service: a third gets
   * 429 with `Retry-After` until one ends (a download you abort ends at once). Each instance also runs a bounded
   * number of exports of all companies together, so a busy instance may answer 429 as well. Read the file
   * steadily: a client that takes nothing for 30 seconds is cut off (the connection is reset) and gives its slot
   * back. `HEAD` on this path answers the headers without running the export.
   */
  @Get('orders/export')
  @ApiOperation({ operationId: 'exportOrders', summary: 'Download every matching order (CSV or NDJSON)' })
  @ApiResponse({
    status: 200,
    description: 'The file, streamed (chunked).',
    headers: DOWNLOAD_HEADERS,
    content: {
      [EXPORT_MEDIA_TYPES.csv.split(';')[0]]: {
        schema: { type: 'string', description: 'RFC 4180 CSV with a header row, UTF-8.' },
        example: CSV_EXAMPLE,
      },
      [EXPORT_MEDIA_TYPES.ndjson]: {
        schema: { type: 'string', description: 'One OrderListItemResponse (JSON) per line.' },
        example: '{"order_id":123,"order_ref":"SK-0000123","created_at":"2026-11-22T07:30", "...": "..."}\n',
      },
    },
  })
  @ApiResponse({
    status: 429,
    description:
      `Rate limit exceeded, your company already runs ${EXPORTS_PER_COMPANY} exports, or the instance runs ` +
      'as many exports as it may: wait Retry-After seconds.',
    headers: { ...RETRY_AFTER, ...RATE_HEADERS },
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(MessageBody) },
        example: {
          message: 'Too many requests. See the API documentation at https://api.example.com/api/docs.',
        },
      },
    },
  })
  @ApiResponse({
    status: 503,
    description:
      'Or exports cannot start on this instance for a moment (the database session that counts export slots ' +
      'does not answer): wait Retry-After seconds.',
    headers: RETRY_AFTER,
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(MessageBody) },
        example: { message: 'Service unavailable.' },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403)
  async export(
    @CallerCompany() companyId: number,
    @Query() query: ExportOrdersQuery,
    @Res() response: Response,
  ): Promise<void> {
    const release = await this.exports.takeSlot(companyId);
    if (typeof release === 'string') {
      const refusal = REFUSALS[release];
      response.setHeader('Retry-After', refusal.retryAfterSeconds);
      throw new DomainError(refusal.code);
    }
    // A client that goes away gives the slots back at once, even while a batch it will never get is read.
    const gone = new AbortController();
    response.once('close', () => {
      gone.abort();
      release();
    });
    try {
      const chunks = this.exports.chunks(companyId, query, query.format, gone.signal);
      await sendDownload(response, chunks, this.download(query.format), this.exports.stallTimeoutMs);
    } finally {
      release();
    }
  }

  private download(format: ExportFormat): Download {
    return {
      contentType: EXPORT_MEDIA_TYPES[format],
      filename: `orders-${new Date().toISOString().slice(0, 10)}.${format}`,
    };
  }
}
