import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { type FieldErrors, ValidationFailedError } from '../kernel/domain-error';
import { ORDER_CSV_COLUMNS, ORDER_VIEW } from '../orders/domain/order-view';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../platform/http/request-body';
import type { ImportFormat } from './order-import.entities';

/** CONTRACT §4.11: the most orders one file holds, its largest size, and its longest line. */
export const MAX_IMPORT_LINES = 100_000;
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
export const MAX_LINE_BYTES = 1024 * 1024;

/**
 * The CSV columns an import reads: the export's columns that are placement fields, and `country`. The export's
 * other columns (order_id, state, updated_at, ...) are known and ignored, so an export can be imported again.
 */
export const IMPORT_CSV_COLUMNS: string[] = [
  ...ORDER_VIEW.filter((field) => 'csv' in field && 'input' in field).map((field) => field.key),
  'country',
];
/** The columns a CSV file must have: every one of IMPORT_CSV_COLUMNS but `country`. */
const REQUIRED_CSV_COLUMNS = IMPORT_CSV_COLUMNS.filter((column) => column !== 'country');
const KNOWN_CSV_COLUMNS = new Set<string>([...ORDER_CSV_COLUMNS, ...IMPORT_CSV_COLUMNS]);

/** One order of the file: its placement body as JSON text, or the errors that made it unreadable. */
export type ParsedLine = { line: number; body: string } | { line: number; errors: FieldErrors };

/** What the file was, once read whole. */
export interface FileSummary {
  lines: number;
  sha256: string;
}

/** A file the import refuses whole (CONTRACT §4.11): 400 naming the problem, nothing stored. */
export const fileError = (message: string): ValidationFailedError =>
  new ValidationFailedError({ file: [message] });

/** The lines POST /order's JSON reader would refuse, with its errors map (MALFORMED_JSON, NESTED_TOO_DEEPLY). */
const MALFORMED: FieldErrors = { body: ['Malformed JSON.'] };
const TOO_DEEP: FieldErrors = { body: ['Nested too deeply.'] };

/** A leading `'` the export put before a cell that starts like a formula (CONTRACT §4.10), taken off again. */
const FORMULA_ESCAPE = /^'(?=[=+\-@\t\r＝＋－＠])/;

/**
 * Reads an uploaded file as it arrives, one order at a time, never holding more than one line: each line's
 * placement body (or its errors), then the file's summary. Throws fileError for what makes the whole file
 * unusable: over 50 MiB, a line over 1 MiB, more than 100,000 lines, no line, text that is not UTF-8, a CSV
 * header with a missing, unknown or repeated column, or a CSV quote left open at the end.
 */
export async function* readImportFile(
  source: AsyncIterable<Buffer>,
  format: ImportFormat,
): AsyncGenerator<ParsedLine, FileSummary> {
  const hash = createHash('sha256');
  let bytes = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      bytes += chunk.length;
      if (bytes > MAX_IMPORT_BYTES) throw fileError('The file is over 50 MiB.');
      hash.update(chunk);
      yield chunk;
    }
  }
  let lines = 0;
  const orders = format === 'csv' ? csvLines(counted()) : ndjsonLines(counted());
  for await (const parsed of orders) {
    lines = parsed.line;
    if (lines > MAX_IMPORT_LINES) throw fileError(`The file has more than ${MAX_IMPORT_LINES} orders.`);
    yield parsed;
  }
  if (lines === 0) throw fileError('The file has no order.');
  return { lines, sha256: hash.digest('hex') };
}

/** The byte lines of a stream (LF or CRLF), the last one even without its line break; none over 1 MiB. */
async function* byteLines(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 1;
  const tooLong = () => fileError(`Line ${number} is over 1 MiB.`);
  for await (const chunk of source) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      if (pendingBytes + end - start > MAX_LINE_BYTES + 1) throw tooLong();
      yield Buffer.concat([...pending, chunk.subarray(start, end)]);
      pending = [];
      pendingBytes = 0;
      number += 1;
      start = end + 1;
    }
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > MAX_LINE_BYTES + 1) throw tooLong();
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** NDJSON: one placement body per line; blank lines are skipped and not counted. */
async function* ndjsonLines(source: AsyncIterable<Buffer>): AsyncGenerator<ParsedLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let fileLine = 0;
  let order = 0;
  for await (let raw of byteLines(source)) {
    fileLine += 1;
    if (fileLine === 1 && raw.subarray(0, 3).equals(BOM)) raw = raw.subarray(3);
    if (raw.at(-1) === 0x0d) raw = raw.subarray(0, -1);
    if (raw.length > MAX_LINE_BYTES) throw fileError(`Line ${fileLine} is over 1 MiB.`);
    let text: string;
    try {
      text = decoder.decode(raw);
    } catch {
      throw fileError(`Line ${fileLine} is not UTF-8 text.`);
    }
    if (text.trim() === '') continue;
    order += 1;
    yield { line: order, ...ndjsonBody(text, raw) };
  }
}

/** A line as POST /order's JSON reader takes a body: an object or an array, else malformed. */
function ndjsonBody(text: string, raw: Buffer): { body: string } | { errors: FieldErrors } {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) return { errors: TOO_DEEP };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { errors: MALFORMED };
  }
  return typeof value === 'object' && value !== null ? { body: text } : { errors: MALFORMED };
}

/** The UTF-8 text of a byte stream; text that is not UTF-8 refuses the file. */
async function* utf8(source: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of source) yield decoder.decode(chunk, { stream: true });
    yield decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) throw fileError('The file is not UTF-8 text.');
    throw error;
  }
}

/** The message of a CSV the reader cannot go on with, naming where. */
function csvFileError(error: CsvError): ValidationFailedError {
  // The records read before the error, the header among them: the number of the order it stopped in.
  const line = Math.max(1, (error as CsvError & { records?: number }).records ?? 0);
  if (error.code === 'CSV_MAX_RECORD_SIZE') return fileError(`Line ${line} is over 1 MiB.`);
  if (error.code === 'CSV_QUOTE_NOT_CLOSED')
    return fileError(`Line ${line} opens a quoted field that the file never closes.`);
  return fileError(`The CSV cannot be read after line ${line}: ${error.message}`);
}

/**
 * CSV (RFC 4180, any line break inside quoted fields, a BOM allowed): a header row of the export's columns, then
 * one order per record. A record with another number of fields than the header is that line's error.
 */
async function* csvLines(source: AsyncIterable<Buffer>): AsyncGenerator<ParsedLine> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_LINE_BYTES,
  });
  const text = Readable.from(utf8(source));
  text.once('error', (error) => parser.destroy(error));
  text.pipe(parser);
  let header: string[] | undefined;
  let order = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = checkedHeader(record);
        continue;
      }
      order += 1;
      yield { line: order, ...csvBody(header, record) };
    }
  } catch (error) {
    if (error instanceof CsvError) throw csvFileError(error);
    throw error;
  } finally {
    text.destroy();
    parser.destroy();
  }
  if (!header) throw fileError('The file has no header row.');
}

function checkedHeader(header: string[]): string[] {
  const unknown = header.filter((column) => !KNOWN_CSV_COLUMNS.has(column));
  if (unknown.length > 0) throw fileError(`Unknown column: ${unknown.join(', ')}.`);
  const repeated = header.filter((column, index) => header.indexOf(column) !== index);
  if (repeated.length > 0) throw fileError(`Repeated column: ${[...new Set(repeated)].join(', ')}.`);
  const missing = REQUIRED_CSV_COLUMNS.filter((column) => !header.includes(column));
  if (missing.length > 0) throw fileError(`Missing column: ${missing.join(', ')}.`);
  return header;
}

/** A record as the placement body of its non-empty import columns (an empty cell: the field is not given). */
function csvBody(header: string[], record: string[]): { body: string } | { errors: FieldErrors } {
  if (record.length !== header.length) {
    return {
      errors: { body: [`The line has ${record.length} fields; the header has ${header.length}.`] },
    };
  }
  const body: Record<string, string> = {};
  header.forEach((column, index) => {
    const cell = record[index];
    if (cell !== '' && IMPORT_CSV_COLUMNS.includes(column)) body[column] = cell.replace(FORMULA_ESCAPE, '');
  });
  return { body: JSON.stringify(body) };
}
