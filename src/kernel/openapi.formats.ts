import { ApiProperty } from '@nestjs/swagger';
import { INPUT_SHAPE } from './datetime';
import { MAX_DB_INTEGER } from './db-integer.validator';

/*
 * How the document describes the values of CONTRACT §2 in every form the server accepts, and no other: a
 * client generated from it must be able to send whatever the server takes, and a validating proxy must refuse
 * what the server refuses wherever a schema can say so.
 */

/**
 * The bound of a header value whose rule allows any length: Node refuses a request whose headers together pass
 * 16 KiB (431) before the service sees it.
 */
export const HEADER_MAX_LENGTH = 16_384;

/** Datetimes out: `YYYY-MM-DDTHH:MM` in the service time zone, no seconds. */
export const DATETIME_OUT_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$';

/** Datetimes in: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` (the calendar is checked too). */
export const DATETIME_IN_PATTERN = INPUT_SHAPE.source;

/** A datetime the API writes; nullability, description and example come from the property. */
export const ApiDateTime = (): PropertyDecorator =>
  ApiProperty({ type: 'string', pattern: DATETIME_OUT_PATTERN });

/** A datetime the API reads (the validator beside it checks that the date exists); the longest has seconds. */
export const ApiDateTimeInput = (): PropertyDecorator =>
  ApiProperty({ type: 'string', pattern: DATETIME_IN_PATTERN, maxLength: 'YYYY-MM-DDTHH:MM:SS'.length });

/** true, false, 1, 0, "true", "false", "1", "0" (CONTRACT §2); null too where the field may be left empty. */
export const ApiBooleanInput = (options: { nullable?: boolean } = {}): PropertyDecorator =>
  ApiProperty({
    anyOf: [
      { type: 'boolean', ...(options.nullable && { nullable: true }) },
      { type: 'integer', enum: [0, 1] },
      { type: 'string', enum: ['true', 'false', '1', '0'] },
    ],
  });

/**
 * An integer id or count in a body: a JSON integer in the PostgreSQL integer range, or the same digits as a
 * string, which the server reads as the number.
 */
export const ApiIntegerInput = (options: { minimum?: number; nullable?: boolean } = {}): PropertyDecorator =>
  ApiProperty({
    anyOf: [
      {
        type: 'integer',
        format: 'int32',
        minimum: options.minimum ?? 1,
        maximum: MAX_DB_INTEGER,
        ...(options.nullable && { nullable: true }),
      },
      // The server reads up to 15 digits; the range check after it refuses what the integer range does.
      {
        type: 'string',
        pattern: (options.minimum ?? 1) > 0 ? '^0*[1-9][0-9]{0,9}$' : '^[0-9]{1,15}$',
        maxLength: 15,
      },
    ],
  });
