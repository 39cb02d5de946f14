import { Transform } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { PageQuery } from '../../kernel/pagination';
import { DbInteger } from '../../kernel/db-integer.validator';
import { toInteger } from '../../kernel/transforms';

export class ListAuditEventsQuery extends PageQuery {
  /** Only changes to objects of this company. */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number;

  /** Only changes made with this token. */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No token has this id.')
  token_id?: number;
}
