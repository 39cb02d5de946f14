import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsApiDateTime } from '../../kernel/api-datetime.validator';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import { ContainsFilter } from '../../kernel/contains-filter';
import { DbInteger, IdFilter } from '../../kernel/db-integer.validator';
import { PageQuery } from '../../kernel/pagination';
import { RequiredText } from '../../kernel/required-text.validator';
import { toBoolean, toInteger } from '../../kernel/transforms';
import { ApiBooleanInput, ApiIntegerInput } from '../../kernel/openapi.formats';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../webhook-delivery.entity';
import { WEBHOOK_SECRET_PATTERN } from '../webhook-secret';

/**
 * A webhook URL's scheme as the WHATWG URL parser reads it (in any case, after leading spaces and control
 * characters, which it drops); the rest of its rules (a host, no user name or password, the address) need a parser.
 */
const WEBHOOK_URL_SCHEME = '^[\\x01-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:';

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
  @ApiProperty({ pattern: WEBHOOK_URL_SCHEME })
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
  @IdFilter()
  company_id?: number;

  @ContainsFilter(
    'Only the endpoints whose URL contains this text, whatever its case.',
    'hooks.example.com',
    2048,
  )
  url?: string;
}

/** Absent means "leave it as it is". */
const unlessAbsent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

export class UpdateWebhookDto {
  /**
   * Where events are POSTed from now on, under the rules of registration (http or https, a public address unless
   * WEBHOOK_ALLOW_PRIVATE=true); the deliveries waiting go there too. An attempt already in flight ends at the
   * URL it was sent to.
   * @example "https://hooks.example.com/restaurant-orders/v2"
   */
  @ApiPropertyOptional({ pattern: WEBHOOK_URL_SCHEME, minLength: 1, maxLength: 2048 })
  @unlessAbsent()
  @RequiredText(2048)
  url?: string;

  /**
   * The event types sent to the endpoint, each one of the declared types; null: every type, those added later
   * too (the default). Deliveries already queued are not affected.
   * @example ["order.placed", "order.state_changed"]
   */
  // The types the publishing modules declare, read when a body is validated and when the document is built.
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: EVENT_TYPES },
    nullable: true,
    minItems: 1,
    // Distinct declared types: never more than there are.
    maxItems: EVENT_TYPES.length,
    uniqueItems: true,
  })
  @IsOptional()
  // The first rule that fails is the one reported, and class-validator runs them bottom up.
  @IsIn(EVENT_TYPES, { each: true, message: `Each event type must be one of the declared types.` })
  @ArrayUnique({ message: 'The event types must not repeat a type.' })
  @ArrayNotEmpty({ message: 'The event types must name at least one type (null: all of them).' })
  @IsArray({ message: 'The event types must be a list of event types, or null for all of them.' })
  event_types?: string[] | null;

  /**
   * false disables the endpoint: nothing is sent to it, and the events meanwhile wait as paused deliveries;
   * true enables it again: the paused deliveries are sent at once, those older than the 24-hour retry
   * window are given up (failed).
   * @example false
   */
  @unlessAbsent()
  @ApiBooleanInput()
  @Transform(toBoolean)
  @IsBoolean({ message: 'The enabled must be true or false.' })
  enabled?: boolean;
}

export class RotateWebhookSecretDto {
  /**
   * The new signing secret, `whsec_` and the base64 of 24 to 64 random bytes; one is generated when left out.
   * @example "whsec_NfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx"
   */
  @ApiProperty({ pattern: WEBHOOK_SECRET_PATTERN.source })
  @IsOptional()
  @IsString({ message: 'The secret must be a string.' })
  @MaxLength(100, { message: 'The secret must be whsec_ and the base64 of 24 to 64 bytes.' })
  secret?: string;

  /**
   * Until when deliveries are signed with the previous secret too (service time zone), so receivers can switch
   * without missing one: at most 7 days ahead; 24 hours from now when left out or null. A time not ahead (now)
   * ends the previous secret at once.
   * @example "2026-11-26T09:00"
   */
  @IsOptional()
  @IsApiDateTime()
  previous_secret_expires_at?: string | null;
}

/** What a partner registers: an endpoint of its own company, which its token names. */
export class CreatePartnerWebhookDto extends OmitType(CreateWebhookDto, ['company_id'] as const) {}

/** The delivery log's filters (CONTRACT §6): every given one applies. */
export class ListWebhookDeliveriesQuery extends PageQuery {
  /** Only deliveries in this state: `failed` lists the given-up ones, `pending` those still being retried. */
  @ApiProperty({ enum: DELIVERY_STATUSES, required: false, example: 'failed' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `The status must be one of ${DELIVERY_STATUSES.join(', ')}.` })
  status?: DeliveryStatus;

  // The types the publishing modules declare, read when the document is built and at each request.
  @ApiProperty({
    enum: EVENT_TYPES,
    required: false,
    example: 'order.placed',
    description: 'Only deliveries of events of this type.',
  })
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: () => `The event type must be one of ${EVENT_TYPES.join(', ')}.` })
  event_type?: string;

  /**
   * Only the delivery of this event (its `webhook-id`, as the receiver saw it): the way to find an event a
   * partner asks about.
   */
  @ApiProperty({ pattern: '^evt_[1-9][0-9]{0,17}$', maxLength: 22, required: false, example: 'evt_1042' })
  @IsOptional()
  @IsString({ message: 'The event id must be evt_ and a number, as in webhook-id.' })
  @Matches(/^evt_[1-9]\d{0,17}$/, { message: 'The event id must be evt_ and a number, as in webhook-id.' })
  event_id?: string;
}

/** The delivery log's filters as the service takes them. */
export const deliveryLogFilter = (query: ListWebhookDeliveriesQuery) => ({
  status: query.status,
  eventType: query.event_type,
  eventId: query.event_id,
});
