import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiDateTime } from '../../kernel/openapi.formats';
import { IMPORT_FORMATS, IMPORT_STATES, type ImportFormat, type ImportState } from '../order-import.entities';

/** A bulk import (CONTRACT §4.11): its state and counts. */
export class ImportResponse {
  /** @example 17 */
  id!: number;
  @ApiProperty({
    enum: IMPORT_STATES,
    example: 'running',
    description:
      'queued (waiting for its turn: at most 2 run at once per company), running, completed or failed.',
  })
  state!: ImportState;
  @ApiProperty({ enum: IMPORT_FORMATS, example: 'csv' })
  format!: ImportFormat;
  /** True: every line is checked, nothing is placed. @example false */
  dry_run!: boolean;
  /** The orders (lines) of the file. @example 20000 */
  total!: number;
  /** Lines placed so far (in a dry run: lines that would be placed). @example 12000 */
  placed!: number;
  /** Lines refused so far, each with its errors in the results. @example 2 */
  failed!: number;
  /** @example "2026-11-28T07:30" */
  @ApiDateTime()
  created_at!: string;
  /** When a worker first started it; null while queued. @example "2026-11-28T07:30" */
  @ApiDateTime()
  started_at!: string | null;
  /** Null until completed or failed. @example null */
  @ApiDateTime()
  finished_at!: string | null;
}

/** An import as an administrator sees it: with its company. */
export class AdminImportResponse extends ImportResponse {
  /** @example 1 */
  company_id!: number;
}

/** One line's result (a line of GET /orders/imports/{id}/results). */
export class ImportResultResponse {
  /** The order's position in the file, from 1 (a CSV's header row and blank lines are not counted). @example 1 */
  line!: number;
  /** The order placed for the line; absent in a dry run and for a refused line. @example 123 */
  order_id?: number;
  /**
   * Why the line was refused: exactly the `errors` map POST /order's 400 gives for the same body; absent when
   * the line was placed (or, in a dry run, would be).
   */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { product_id: ['The selected product id is invalid.'] },
  })
  errors?: Record<string, string[]>;
}
