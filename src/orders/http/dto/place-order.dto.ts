import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsOptional,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { isISO31661Alpha2 } from 'class-validator';
import { DbInteger, MAX_DB_INTEGER } from '../../../kernel/db-integer.validator';
import { ApiBooleanInput, ApiIntegerInput } from '../../../kernel/openapi.formats';
import { OptionalText } from '../../../kernel/optional-text.validator';
import { fieldLabel } from '../../../kernel/field-label';
import { RequiredText } from '../../../kernel/required-text.validator';
import { toBoolean, toInteger } from '../../../kernel/transforms';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ORDER_TYPES, type OrderType } from '../../order-state';

@ValidatorConstraint({ name: 'countryCode' })
class CountryCode implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^[A-Za-z]{2}$/.test(value) && isISO31661Alpha2(value.toUpperCase());
  }
  defaultMessage(): string {
    return 'The country must be a two-letter ISO 3166-1 country code such as sk.';
  }
}

/** "" and null mean "none"; digits (as a string, as the spec types it, or a number) name an order. */
const toOrderId = ({ value }: { value: unknown }): unknown => {
  if (value === '' || value === null) return null;
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  return value;
};

const booleanMessage = ({ property }: { property: string }) =>
  `The ${fieldLabel(property)} field must be true or false.`;

/**
 * An order as a partner places it (spec §2.1). Types and lengths are checked here; the rules that need the
 * database or several fields (product and variation, original order, the 50-character site rule) are
 * checked by the order validator, and all failures are reported together. Its properties are the order
 * view's input fields (domain/order-view.ts), each with a validation rule: test/registrations.spec.ts fails
 * when one is missing, extra or unvalidated (the validation pipe would drop it without a word).
 */
export class PlaceOrderDto {
  /** Customer contact first name. @example "Jana" */
  @RequiredText()
  first_name!: string;

  /** @example "Nováková" */
  @RequiredText()
  last_name!: string;

  /** Name of the partner company. @example "Bistro Group s.r.o." */
  @RequiredText()
  consignee!: string;

  /** RFC 2822 address. @example "jana.novakova@example.com" */
  @IsEmail({}, { message: 'The email must be a valid email address.' })
  @RequiredText()
  email!: string;

  /** @example "+421900123456" */
  @RequiredText()
  phone!: string;

  /** Delivery postal code. @example "81101" */
  @RequiredText()
  zip!: string;

  /** @example "Bratislava" */
  @RequiredText()
  city!: string;

  /** @example "Obchodná" */
  @RequiredText()
  street!: string;

  /** @example "12" */
  @RequiredText()
  house_number!: string;

  /** @example "2" */
  @OptionalText()
  floor?: string | null;

  /** @example "B" */
  @OptionalText()
  door?: string | null;

  /** Opening hours of the consignee. @example "Mo-Fr 10:00-22:00" */
  @OptionalText()
  opening_hours?: string | null;

  /**
   * Two-letter ISO 3166-1 code, any case in, lower case out. When given, its upper case is the order's site
   * (else the company's), which decides the 50-character limit of note and details (SK, CZ, PL).
   * @example "sk"
   */
  @ApiPropertyOptional({ pattern: '^[A-Za-z]{2}$', maxLength: 2 })
  @IsOptional()
  @Validate(CountryCode)
  country?: string | null;

  /** An active product (GET /api/v2/product). An integer; a string of digits is read as one. @example 2 */
  @ApiIntegerInput()
  @DbInteger('The selected product id is invalid.')
  @Transform(toInteger)
  @IsDefined({ message: 'The product id field is required.' })
  product_id!: number;

  /** Required when the product has variations, and then one of them; absent or null otherwise. @example 4 */
  @ApiIntegerInput({ nullable: true })
  @DbInteger('The selected product variation id is not a variation of the product.')
  @Transform(toInteger)
  @IsOptional()
  product_variation_id?: number | null;

  /** Login credential for the restaurant device. @example "bistro-12" */
  @RequiredText()
  login!: string;

  /** Password credential for the restaurant device. @example "device-secret" */
  @RequiredText()
  password!: string;

  /** @example "REGULAR" */
  @IsIn(ORDER_TYPES, { message: `The selected order type is invalid: use ${ORDER_TYPES.join(', ')}.` })
  @IsDefined({ message: 'The order type field is required.' })
  order_type!: OrderType;

  /**
   * For EXCHANGE and RETURN (required there), the id of an earlier order of your company: an EXCHANGE
   * follows a REGULAR or EXCHANGE order, a RETURN any order but a RETURN. Absent, null or "" for REGULAR;
   * digits as a string ("123", as the spec types it) are accepted too.
   * @example "123"
   */
  @ApiProperty({
    anyOf: [
      { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_DB_INTEGER, nullable: true },
      { type: 'string', pattern: '^(0{0,8}[1-9][0-9]{0,8})?$', maxLength: 9 },
    ],
  })
  @DbInteger('The selected original order id is invalid.')
  @Transform(toOrderId)
  @IsOptional()
  original_order_id?: number | null;

  /** A test order is never processed. Default false. @example false */
  @ApiBooleanInput({ nullable: true })
  @IsBoolean({ message: booleanMessage })
  @Transform(toBoolean)
  @IsOptional()
  test?: boolean | null;

  /** Comment for the delivery address: at most 50 characters on SK, CZ and PL sites, else 255. @example "Ring twice" */
  @OptionalText(255)
  note?: string | null;

  /** Corrected order id (the capital ID is the spec's). @example "SK-0000100" */
  @OptionalText()
  corrected_order_ID?: string | null;

  /** Merchant identifier. @example "M-4411" */
  @RequiredText()
  merchant_id!: string;

  /** User id in the order management system. @example 17 */
  @ApiIntegerInput({ minimum: 0, nullable: true })
  @DbInteger('The oms user id must be between 0 and 2147483647.', 0)
  @Transform(toInteger)
  @IsOptional()
  oms_user_id?: number | null;

  /** Marks a retail order instead of a restaurant order. @example false */
  @ApiBooleanInput({ nullable: true })
  @IsBoolean({ message: booleanMessage })
  @Transform(toBoolean)
  @IsOptional()
  retail?: boolean | null;

  /** Marks a dine-out order instead of a restaurant order. @example false */
  @ApiBooleanInput({ nullable: true })
  @IsBoolean({ message: booleanMessage })
  @Transform(toBoolean)
  @IsOptional()
  dinein?: boolean | null;

  /** @example "S-22" */
  @OptionalText()
  shop_number?: string | null;

  /** Where to find the merchant: at most 50 characters on SK, CZ and PL sites, else 65,535. @example "Back entrance" */
  @OptionalText(65_535)
  details?: string | null;
}
