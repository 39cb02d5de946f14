import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { DbInteger } from '../../common/db-integer.validator';
import { toInteger } from '../../common/transforms';

export class ListTokensQuery extends PageQuery {
  /** Only the tokens of this company. */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number;
}
