import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { toInteger } from '../../common/transforms';

export class ListTokensQuery extends PageQuery {
  /** Only the tokens of this company. */
  @IsOptional()
  @Transform(toInteger)
  @Min(1, { message: 'The company id must be an integer.' })
  @IsInt({ message: 'The company id must be an integer.' })
  company_id?: number;
}
