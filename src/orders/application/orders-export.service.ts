import { setImmediate } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { stringify } from 'csv-stringify/sync';
import type { Environment } from '../../platform/config/environment';
import { ApiFormats } from '../../platform/formats/api-formats';
import { withCredentialsText } from '../persistence/order-json';
import type { ExportFormat } from '../http/dto/export-orders.query';
import {
  type ExportCsvRow,
  type ExportJsonRow,
  type ExportPosition,
  OrdersExportRepository,
} from '../persistence/orders-export.repository';
import { ORDER_CSV_COLUMNS, type OrderCsvColumn } from '../domain/order-view';
import { type ExportRefusal, ExportSlots, type ReleaseSlot } from './export-slots';
import { type OrderFilterQuery, toOrderFilter } from './order-filter';

export { EXPORTS_PER_COMPANY, type ExportRefusal } from './export-slots';

/** Orders per batch: one statement each; large enough to amortise it, small enough to keep memory flat. */
export const EXPORT_BATCH_SIZE = 1_000;
/**
 * Orders per chunk: what is formatted (credentials opened, CSV quoted) in one go before the event loop serves
 * others again. At about 50 µs an order, a few milliseconds.
 */
const EXPORT_SLICE_ROWS = 100;

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
const toCsv = (records: unknown[][] | Record<OrderCsvColumn, unknown>[], header: boolean): string =>
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
  version: 5,
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

  /** A slot of this instance's and one of the company's (on any instance), held until released; or why not. */
  takeSlot(companyId: number): Promise<ReleaseSlot | ExportRefusal> {
    return this.slots.take(companyId);
  }

  /**
   * The file in chunks of EXPORT_SLICE_ROWS orders. The first batch is read before anything is produced, so a
   * failure to read surfaces before the response has started; the next is read only when the consumer asks for
   * more. Between two chunks the event loop serves everything else that is waiting, so an export costs other
   * requests at most a chunk's work at a time, however fast its client reads. Once `stop` is aborted (the
   * client went away) nothing more is formatted.
   */
  async *chunks(
    companyId: number,
    query: OrderFilterQuery,
    format: ExportFormat,
    stop: AbortSignal,
  ): AsyncGenerator<string> {
    const filter = toOrderFilter(query, this.formats);
    const batch = (after: ExportPosition | null) =>
      format === 'csv'
        ? this.exports.csvBatch(companyId, filter, after, EXPORT_BATCH_SIZE)
        : this.exports.jsonBatch(companyId, filter, after, EXPORT_BATCH_SIZE);
    let rows: (ExportCsvRow | ExportJsonRow)[] = await batch(null);
    if (rows.length === 0) yield format === 'csv' ? toCsv([], true) : '';
    for (let first = true; rows.length > 0; first = false) {
      for (let start = 0; start < rows.length; start += EXPORT_SLICE_ROWS) {
        if (!first || start > 0) await setImmediate();
        if (stop.aborted) return;
        const slice = rows.slice(start, start + EXPORT_SLICE_ROWS);
        yield format === 'csv'
          ? this.csv(slice as ExportCsvRow[], first && start === 0)
          : this.ndjson(slice as ExportJsonRow[]);
      }
      if (rows.length < EXPORT_BATCH_SIZE) return;
      const last = rows[rows.length - 1];
      rows = await batch({ createdAt: last.position_created_at, id: last.position_id });
      if (stop.aborted) return;
    }
  }

  /** One list item of GET /orders per line, as PostgreSQL wrote it, the credentials opened in place. */
  private ndjson(rows: ExportJsonRow[]): string {
    let lines = '';
    for (const row of rows) lines += `${withCredentialsText(row, this.formats)}\n`;
    return lines;
  }

  private csv(rows: ExportCsvRow[], header: boolean): string {
    for (const row of rows) {
      const { login, password } = this.formats.deviceCredentials(row);
      row.login = login;
      row.password = password;
    }
    return toCsv(rows, header);
  }
}
