import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { stringify } from 'csv-stringify/sync';
import type { Environment } from '../../platform/config/environment';
import { ApiFormats } from '../../platform/formats/api-formats';
import { withCredentials } from '../persistence/order-json';
import type { ExportFormat } from '../http/dto/export-orders.query';
import { type ExportRow, OrdersExportRepository } from '../persistence/orders-export.repository';
import { ORDER_CSV_COLUMNS, type OrderCsvColumn } from '../domain/order-view';
import { ExportSlots, type ReleaseSlot } from './export-slots';
import { type OrderFilterQuery, toOrderFilter } from './order-filter';

export { EXPORTS_PER_COMPANY } from './export-slots';

/** Orders per batch: one statement each; large enough to amortise it, small enough to keep memory flat. */
export const EXPORT_BATCH_SIZE = 1_000;

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
};

/**
 * RFC 4180 (CRLF rows, quotes doubled, fields quoted when they hold a comma, a quote or a line break of any
 * kind: CRLF, a bare LF or a bare CR, each of which standard readers take for the end of a row); a text cell
 * starting with =, +, -, @, tab or CR (or their full-width forms, which spreadsheets read alike) gets a leading
 * `'` so that no spreadsheet runs it as a formula. null is an empty cell; booleans are true and false.
 */
const toCsv = (records: unknown[][], header: boolean): string =>
  stringify(records, {
    header,
    columns: ORDER_CSV_COLUMNS,
    record_delimiter: 'windows',
    // With record_delimiter set, csv-stringify quotes only fields holding CRLF itself unless told otherwise.
    quote_record_delimiter: true,
    escape_formulas: true,
    cast: { boolean: (value) => String(value) },
  });

/** A delivered order as a row of the file: the example of the API documentation. */
const EXAMPLE_ORDER: Record<OrderCsvColumn, string | number | boolean | null> = {
  order_id: 123,
  order_ref: 'SK-0000123',
  created_at: '2026-11-22T07:30',
  first_name: 'Jana',
  last_name: 'Nováková',
  consignee: 'Bistro Group s.r.o.',
  email: 'jana.novakova@example.com',
  phone: '+421900123456',
  zip: '81101',
  city: 'Bratislava',
  street: 'Obchodná',
  house_number: '12',
  floor: '2',
  door: 'B',
  opening_hours: 'Mo-Fr 10:00-22:00',
  product_id: 2,
  product_variation_id: 4,
  login: 'bistro-12',
  password: 'device-secret',
  final_completion_date: null,
  order_type: 'REGULAR',
  original_order_id: null,
  serial_number: null,
  merchant_id: 'M-4411',
  state: 'DELIVERED',
  test: false,
  tracking_numbers: 'PKG123456789',
  delivered_at: '2026-11-23T10:15',
  updated_at: '2026-11-23T10:15',
};

/** The header row and one example row, written as the export writes them. */
export const CSV_EXAMPLE = toCsv([ORDER_CSV_COLUMNS.map((column) => EXAMPLE_ORDER[column])], true);

/** The company's orders as the export file, produced lazily, batch by batch, newest first. */
@Injectable()
export class OrdersExportService {
  /** How long a client may take nothing before its download is cut off (EXPORT_STALL_TIMEOUT_MS). */
  readonly stallTimeoutMs: number;

  constructor(
    private readonly exports: OrdersExportRepository,
    private readonly slots: ExportSlots,
    private readonly formats: ApiFormats,
    config: ConfigService<Environment, true>,
  ) {
    this.stallTimeoutMs = config.get('EXPORT_STALL_TIMEOUT_MS', { infer: true });
  }

  /** One of the company's export slots (null when all are taken, on any instance), held until released. */
  takeSlot(companyId: number): Promise<ReleaseSlot | null> {
    return this.slots.take(companyId);
  }

  /**
   * The file in chunks of one batch each. The first batch is read before anything is produced, so a failure
   * to read surfaces before the response has started; the next is read only when the consumer asks for more.
   */
  async *chunks(companyId: number, query: OrderFilterQuery, format: ExportFormat): AsyncGenerator<string> {
    const csv = format === 'csv';
    const filter = toOrderFilter(query, this.formats);
    let rows = await this.exports.batch(companyId, filter, null, EXPORT_BATCH_SIZE, csv);
    yield csv
      ? toCsv(
          rows.map((row) => this.csvRecord(row)),
          true,
        )
      : this.ndjson(rows);
    while (rows.length === EXPORT_BATCH_SIZE) {
      const last = rows[rows.length - 1];
      const after = { createdAt: last.created_at_exact, id: last.body.order_id };
      rows = await this.exports.batch(companyId, filter, after, EXPORT_BATCH_SIZE, csv);
      if (rows.length > 0)
        yield csv
          ? toCsv(
              rows.map((row) => this.csvRecord(row)),
              false,
            )
          : this.ndjson(rows);
    }
  }

  /** One list item of GET /order per line. */
  private ndjson(rows: ExportRow[]): string {
    return rows.map((row) => `${JSON.stringify(withCredentials(row, this.formats))}\n`).join('');
  }

  private csvRecord(row: ExportRow): unknown[] {
    const order = withCredentials(row, this.formats);
    const fields: Record<OrderCsvColumn, unknown> = {
      ...order,
      tracking_numbers: order.trackings.map((tracking) => tracking.tracking_number).join(' '),
      delivered_at: row.delivered_at ?? null,
    };
    return ORDER_CSV_COLUMNS.map((column) => fields[column]);
  }
}
