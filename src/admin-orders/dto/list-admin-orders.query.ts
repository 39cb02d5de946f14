import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { IdFilter } from '../../kernel/db-integer.validator';
import { ListOrdersQuery } from '../../orders/http/dto/list-orders.query';

/**
 * An administrator's search for orders across companies (CONTRACT §6); every filter combined with AND. The
 * page, the order id, the state and the created range are the partner list's own parameters, with its rules.
 */
export class ListAdminOrdersQuery extends PickType(ListOrdersQuery, [
  'page',
  'per_page',
  'order_id',
  'state',
  'created_from',
  'created_to',
] as const) {
  /** Only this company's orders. @example 1 */
  @IdFilter()
  company_id?: number;

  /**
   * The order reference a partner reads out: the site, a dash and the order id (any case, leading zeros
   * optional). @example "SK-0000123"
   */
  @ApiPropertyOptional({ maxLength: 23 })
  @Matches(/^[A-Za-z]{2}-\d{1,20}$/, {
    message: 'The order reference must be a site, a dash and the order id, like SK-0000123.',
  })
  @IsString({ message: 'The order reference must be a string, like SK-0000123.' })
  @IsOptional()
  order_ref?: string;
}
