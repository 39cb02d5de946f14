import { PageQuery } from '../../kernel/pagination';
import { IdFilter } from '../../kernel/db-integer.validator';

/** A page of the company's imports, newest first. */
export class ListImportsQuery extends PageQuery {}

/** A page of every company's imports, newest first, or one company's. */
export class ListAdminImportsQuery extends PageQuery {
  /** Only this company's imports. @example 1 */
  @IdFilter()
  company_id?: number;
}
