import { ApiProperty, OmitType } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { ListOrdersQuery } from './list-orders.query';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Every filter of the list (CONTRACT §4.2), no pagination, and the format of the file. */
export class ExportOrdersQuery extends OmitType(ListOrdersQuery, ['page', 'per_page'] as const) {
  @ApiProperty({
    enum: EXPORT_FORMATS,
    example: 'csv',
    description:
      'csv: a spreadsheet file (RFC 4180, one row per order); ndjson: one order per line, as in the list.',
  })
  @IsIn(EXPORT_FORMATS, { message: 'The format must be csv or ndjson.' })
  @IsDefined({ message: 'The format field is required: csv or ndjson.' })
  format!: ExportFormat;
}
