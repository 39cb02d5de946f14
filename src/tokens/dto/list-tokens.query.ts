import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { PageQuery } from '../../kernel/pagination';
import { DbInteger } from '../../kernel/db-integer.validator';
import { toInteger } from '../../kernel/transforms';

export class ListTokensQuery extends PageQuery {
  /** Only the tokens of this company. */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number;
}
