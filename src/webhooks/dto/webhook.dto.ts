import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { ContainsFilter } from '../../kernel/contains-filter';
import { DbInteger } from '../../kernel/db-integer.validator';
import { PageQuery } from '../../kernel/pagination';
import { RequiredText } from '../../kernel/required-text.validator';
import { toInteger } from '../../kernel/transforms';
import { ApiIntegerInput } from '../../kernel/openapi.formats';
import { WEBHOOK_SECRET_PATTERN } from '../webhook-secret';

export class CreateWebhookDto {
  /** The company whose events are sent. @example 1 */
  @IsDefined({ message: 'The company id field is required.' })
  @ApiIntegerInput()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id!: number;

  /**
   * Where events are POSTed: http or https, on a public address (loopback, private and link-local
   * addresses are refused unless WEBHOOK_ALLOW_PRIVATE=true).
   * @example "https://hooks.example.com/restaurant-orders"
   */
  // The scheme as the WHATWG URL parser reads it (in any case, after leading spaces and control characters,
  // which it drops); the rest of its rules (a host, no user name or password, the address) need a parser.
  @ApiProperty({ pattern: '^[\\x01-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:' })
  @RequiredText(2048)
  url!: string;

  /**
   * The signing secret, `whsec_` and the base64 of 24 to 64 random bytes; one is generated when left out.
   * @example "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
   */
  @ApiProperty({ pattern: WEBHOOK_SECRET_PATTERN.source })
  @IsOptional()
  @IsString({ message: 'The secret must be a string.' })
  @MaxLength(100, { message: 'The secret must be whsec_ and the base64 of 24 to 64 bytes.' })
  secret?: string;
}

export class ListWebhooksQuery extends PageQuery {
  /** Only the endpoints of this company. */
  @IsOptional()
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number;

  @ContainsFilter(
    'Only the endpoints whose URL contains this text, whatever its case.',
    'hooks.example.com',
    2048,
  )
  url?: string;
}
