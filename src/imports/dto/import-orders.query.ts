import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { ApiBooleanInput } from '../../kernel/openapi.formats';
import { toBoolean } from '../../kernel/transforms';

/** The upload's options (CONTRACT §4.11). */
export class ImportOrdersQuery {
  /** true: check every line with every placement rule and place nothing; the results say what would happen. */
  @ApiBooleanInput()
  @IsBoolean({ message: 'The dry run field must be true or false.' })
  @Transform(toBoolean)
  @IsOptional()
  dry_run?: boolean;
}
