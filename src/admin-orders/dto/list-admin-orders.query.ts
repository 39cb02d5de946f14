import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { IsApiDateTime } from '../../kernel/api-datetime.validator';
import { DbInteger } from '../../kernel/db-integer.validator';
import { PageQuery } from '../../kernel/pagination';
import { toInteger } from '../../kernel/transforms';
import { ORDER_STATES, type OrderState } from '../../orders/order-state';

/** An administrator's search for orders across companies (CONTRACT §6); every filter combined with AND. */
export class ListAdminOrdersQuery extends PageQuery {
  /** Only this company's orders. @example 1 */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number;

  /** The order id (digits). @example "123" */
  @ApiPropertyOptional({ maxLength: 20 })
  @Matches(/^\d{1,20}$/, { message: 'The order id must be a number.' })
  @IsString({ message: 'The order id must be a number.' })
  @IsOptional()
  order_id?: string;

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

  /** @example "PLACED" */
  @IsIn(ORDER_STATES, { message: `The selected state is invalid: use ${ORDER_STATES.join(', ')}.` })
  @IsOptional()
  state?: OrderState;

  /** Orders placed at or after (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], service time zone). @example "2026-11-01" */
  @IsApiDateTime()
  @IsOptional()
  created_from?: string;

  /** Orders placed up to and including. @example "2026-11-30T23:59:59" */
  @IsApiDateTime()
  @IsOptional()
  created_to?: string;
}
