import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Roles } from '../../auth/auth.decorators';
import type { Principal } from '../../auth/principal';
import { ApiFormats } from '../../common/api-formats';
import { ApiErrorResponses } from '../../common/openapi.decorators';
import { toOrderFilter } from '../order-filter';
import { ExportOrdersQuery } from './export-orders.query';
import { EXPORT_MEDIA_TYPES, OrdersExportService } from './orders-export.service';
import { sendDownload } from './send-download';

const CSV_EXAMPLE =
  'order_id,order_ref,created_at,first_name,last_name,consignee,email,phone,zip,city,street,house_number,floor,' +
  'door,opening_hours,product_id,product_variation_id,login,password,final_completion_date,order_type,' +
  'original_order_id,serial_number,merchant_id,state,test,tracking_numbers,delivered_at,updated_at\r\n' +
  '123,SK-0000123,2026-11-22T07:30,Jana,Nováková,Bistro Group s.r.o.,jana.novakova@example.com,' +
  "'+421900123456,81101,Bratislava,Obchodná,12,2,B,Mo-Fr 10:00-22:00,2,4,bistro-12,device-secret,,REGULAR,,," +
  'M-4411,DELIVERED,false,PKG123456789,2026-11-23T10:15,2026-11-23T10:15\r\n';

/** The partner's orders as one file (CONTRACT §4.10). */
@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2')
export class OrdersExportController {
  constructor(
    private readonly exports: OrdersExportService,
    private readonly formats: ApiFormats,
  ) {}

  /**
   * Every order of your company that matches the filters (the list's, combined with AND), newest first, in one
   * streamed file: no pagination, one request against the rate limit, memory flat on both sides whatever the
   * count. `csv` has a header row and one row per order: the order's scalar fields in the specification's
   * order, then `state`, `test`, `tracking_numbers` (space-separated), `delivered_at` (latest delivery date)
   * and `updated_at`; a text cell starting with `=`, `+`, `-`, `@`, tab or CR (or their full-width forms) is
   * prefixed with `'` so that spreadsheets never run it as a formula. `ndjson` has one list item of
   * `GET /orders` per line. A transfer that breaks off midway ends without its final chunk: retry it.
   */
  @Get('orders/export')
  @ApiOperation({ operationId: 'exportOrders', summary: 'Download every matching order (CSV or NDJSON)' })
  @ApiResponse({
    status: 200,
    description: 'The file, streamed (chunked).',
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="orders-<UTC date>.csv" (or .ndjson).',
        schema: { type: 'string', example: 'attachment; filename="orders-2026-11-23.csv"' },
      },
    },
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
  @ApiErrorResponses(400, 401, 403, 429)
  async export(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ExportOrdersQuery,
    @Res() response: Response,
  ): Promise<void> {
    const chunks = this.exports.chunks(
      principal.companyId!,
      toOrderFilter(query, this.formats),
      query.format,
    );
    await sendDownload(response, chunks, {
      contentType: EXPORT_MEDIA_TYPES[query.format],
      filename: `orders-${new Date().toISOString().slice(0, 10)}.${query.format}`,
    });
  }
}
