import { PageQuery } from '../../kernel/pagination';
import { IdFilter } from '../../kernel/db-integer.validator';

export class ListAuditEventsQuery extends PageQuery {
  /** Only changes to objects of this company. */
  @IdFilter()
  company_id?: number;

  /** Only changes made with this token. */
  @IdFilter()
  token_id?: number;
}
