import { ApiProperty } from '@nestjs/swagger';
import { IMPORT_STATES, type ImportState } from '../order-import.entities';

/** The `data` of `import.completed` and `import.failed` (CONTRACT §4.11, §5): the import's id and its counts. */
export class ImportEventData {
  /** @example 17 */
  import_id!: number;
  @ApiProperty({ enum: IMPORT_STATES, example: 'completed' })
  state!: ImportState;
  /** @example false */
  dry_run!: boolean;
  /** @example 20000 */
  total!: number;
  /** @example 19998 */
  placed!: number;
  /** @example 2 */
  failed!: number;
}

const TIMESTAMP = {
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
  example: '2026-11-22T07:30:12.345Z',
  description: 'When the import finished: ISO 8601 in UTC with milliseconds.',
};

export class ImportCompletedEvent {
  @ApiProperty({ pattern: '^evt_[1-9][0-9]{0,17}$', example: 'evt_1042' })
  id!: string;
  @ApiProperty({ enum: ['import.completed'], example: 'import.completed' })
  type!: 'import.completed';
  @ApiProperty(TIMESTAMP)
  timestamp!: string;
  @ApiProperty({ type: ImportEventData })
  data!: ImportEventData;
}

export class ImportFailedEvent {
  @ApiProperty({ pattern: '^evt_[1-9][0-9]{0,17}$', example: 'evt_1043' })
  id!: string;
  @ApiProperty({ enum: ['import.failed'], example: 'import.failed' })
  type!: 'import.failed';
  @ApiProperty(TIMESTAMP)
  timestamp!: string;
  @ApiProperty({ type: ImportEventData })
  data!: ImportEventData;
}
