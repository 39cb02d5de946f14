import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { IsApiDateTime } from '../../../kernel/api-datetime.validator';
import { ApiBooleanInput } from '../../../kernel/openapi.formats';
import { MaxCharacters, StorableText } from '../../../kernel/required-text.validator';
import { PageQuery } from '../../../kernel/pagination';
import { toBoolean } from '../../../kernel/transforms';
import { ORDER_STATES, ORDER_TYPES, type OrderState, type OrderType } from '../../order-state';

/** Spec §4.2 filters and the contract's sync filters; all optional, all combined with AND. */
export class ListOrdersQuery extends PageQuery {
  /** The market-specific order id (digits). @example "123" */
  @ApiPropertyOptional({ maxLength: 20 })
  @Matches(/^\d{1,20}$/, { message: 'The order id must be a number.' })
  @IsString({ message: 'The order id must be a number.' })
  @IsOptional()
  order_id?: string;

  /** Orders placed at or after (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], service time zone). @example "2026-11-01" */
  @IsApiDateTime()
  @IsOptional()
  created_from?: string;

  /** Orders placed up to and including. @example "2026-11-30T23:59:59" */
  @IsApiDateTime()
  @IsOptional()
  created_to?: string;

  /** Orders with a tracking of this number. @example "PKG123456789" */
  @ApiPropertyOptional({ maxLength: 255 })
  @MaxCharacters(255)
  @Matches(/\S/, { message: 'The tracking number must not be empty.' })
  @StorableText()
  @IsString({ message: 'The tracking number must be a string.' })
  @IsOptional()
  tracking_number?: string;

  /** true: some tracking has a delivery date; false: none has. */
  @ApiBooleanInput()
  @IsBoolean({ message: 'The delivered field must be true or false.' })
  @Transform(toBoolean)
  @IsOptional()
  delivered?: boolean;

  /** Some tracking delivered at or after. @example "2026-11-01" */
  @IsApiDateTime()
  @IsOptional()
  delivered_from?: string;

  /** Some tracking delivered up to and including. @example "2026-11-30" */
  @IsApiDateTime()
  @IsOptional()
  delivered_to?: string;

  /** @example "REGULAR" */
  @IsIn(ORDER_TYPES, { message: `The selected order type is invalid: use ${ORDER_TYPES.join(', ')}.` })
  @IsOptional()
  order_type?: OrderType;

  /** Beyond the spec, for incremental sync: orders in this state. @example "PLACED" */
  @IsIn(ORDER_STATES, { message: `The selected state is invalid: use ${ORDER_STATES.join(', ')}.` })
  @IsOptional()
  state?: OrderState;

  /** Beyond the spec, for incremental sync: changed at or after (full precision is kept). @example "2026-11-22T07:00:00" */
  @IsApiDateTime()
  @IsOptional()
  updated_from?: string;

  /** Changed up to and including. @example "2026-11-22T08:00:00" */
  @IsApiDateTime()
  @IsOptional()
  updated_to?: string;
}
