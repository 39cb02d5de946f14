import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { toInteger } from '../../common/transforms';

export class ListAuditEventsQuery extends PageQuery {
  /** Only changes to objects of this company. */
  @IsOptional()
  @Transform(toInteger)
  @Min(1, { message: 'The company id must be an integer.' })
  @IsInt({ message: 'The company id must be an integer.' })
  company_id?: number;

  /** Only changes made with this token. */
  @IsOptional()
  @Transform(toInteger)
  @Min(1, { message: 'The token id must be an integer.' })
  @IsInt({ message: 'The token id must be an integer.' })
  token_id?: number;
}
