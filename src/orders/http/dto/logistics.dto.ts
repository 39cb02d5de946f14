import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsUrl, Matches } from 'class-validator';
import { IsApiDateTime } from '../../../kernel/api-datetime.validator';
import { OptionalText } from '../../../kernel/optional-text.validator';
import { MaxCharacters, RequiredText } from '../../../kernel/required-text.validator';

export const RESOLUTIONS = ['Comment', 'Information', 'Cancel'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/**
 * An optional http(s) URL of at most 2,048 characters (a tracking page). The pattern is what validator.js's
 * isURL checks by the scheme and the characters alone: http or https in any case, then no whitespace, `<` or
 * `>`; the host must have a top-level domain too, which no pattern here says.
 */
function OptionalLink(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      type: 'string',
      nullable: true,
      maxLength: 2_048,
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?:[^\\s<>]+$',
      description: 'An http or https URL on a host with a top-level domain, at most 2,048 characters.',
    }),
    IsOptional(),
    IsUrl(
      { protocols: ['http', 'https'], require_protocol: true },
      { message: 'The tracking link must be an http(s) URL.' },
    ),
    MaxCharacters(2_048, 'The tracking link may not be greater than 2048 characters.'),
  );
}

/**
 * A tracking number holds no whitespace: the export lists an order's tracking numbers separated by spaces, and
 * a number with a space in it would read as two.
 */
export const TRACKING_NUMBER = /^\S+$/;
export const TRACKING_NUMBER_WHITESPACE = 'The tracking number may not contain spaces or other whitespace.';
const TRACKING_NUMBER_DESCRIPTION = "The fulfilment partner's code: no spaces, other whitespace or NUL.";

/** The tracking number in the path of PUT /logistics/orders/{id}/trackings/{trackingNumber}, as documented. */
export function ApiTrackingNumberParam(): MethodDecorator {
  return ApiParam({
    name: 'trackingNumber',
    description: TRACKING_NUMBER_DESCRIPTION,
    schema: {
      type: 'string',
      pattern: '^[^\\s\\x00]+$',
      minLength: 1,
      maxLength: 255,
      example: 'PKG123456789',
    },
  });
}

/** One tracking, created or replaced whole (PUT). A delivery_date delivers the order, a dispatch_date dispatches it. */
export class TrackingDto {
  /** Free text from the fulfilment partner. @example "In transit" */
  @OptionalText(1_000)
  status?: string | null;

  /** @example "2026-11-22T09:15" */
  @IsApiDateTime()
  @IsOptional()
  status_date?: string | null;

  /** Moves a SENT_TO_LOGISTICS order to DISPATCHED. @example "2026-11-22T08:00" */
  @IsApiDateTime()
  @IsOptional()
  dispatch_date?: string | null;

  /** Moves a SENT_TO_LOGISTICS or DISPATCHED order to DELIVERED. @example "2026-11-22T12:10" */
  @IsApiDateTime()
  @IsOptional()
  delivery_date?: string | null;

  /** @example "https://track.example.com/PKG123456789" */
  @OptionalLink()
  tracking_link?: string | null;
}

/** A detailed status report; the order shows the latest by status_date. */
export class DetailedStatusDto {
  /** @example "Out for delivery" */
  @RequiredText(1_000)
  status!: string;

  /** @example "2026-11-22T09:15" */
  @IsApiDateTime()
  @IsDefined({ message: 'The status date field is required.' })
  status_date!: string;

  /** @example "Bratislava depot" */
  @OptionalText(1_000)
  location?: string | null;

  /** @example "Courier has the parcel" */
  @OptionalText(5_000)
  description?: string | null;

  /** @example "PKG123456789" */
  @ApiPropertyOptional({ description: TRACKING_NUMBER_DESCRIPTION, pattern: '^[^\\s\\x00]*$' })
  @Matches(/^\S*$/, { message: TRACKING_NUMBER_WHITESPACE })
  @OptionalText()
  tracking_number?: string | null;

  /** @example "https://track.example.com/PKG123456789" */
  @OptionalLink()
  tracking_link?: string | null;
}

/** A failed delivery. Resolution Cancel cancels an order that is not delivered yet. */
export class DeliveryErrorDto {
  /** @example "Nobody at the address" */
  @RequiredText(1_000)
  status!: string;

  /** @example "2026-11-22T10:30" */
  @IsApiDateTime()
  @IsDefined({ message: 'The date field is required.' })
  date!: string;

  /** @example "Information" */
  @IsIn(RESOLUTIONS, { message: `The resolution must be one of ${RESOLUTIONS.join(', ')}.` })
  @IsDefined({ message: 'The resolution field is required.' })
  resolution!: Resolution;

  /** @example "Second attempt tomorrow" */
  @OptionalText(5_000)
  comment?: string | null;
}

/** The serial number of what was shipped, and the completion date (which completes a DELIVERED order). */
export class LogisticsPatchDto {
  /** @example "SN-2026-000123" */
  @OptionalText()
  serial_number?: string | null;

  /** @example "2026-11-23T12:00" */
  @IsApiDateTime()
  @IsOptional()
  final_completion_date?: string | null;
}
