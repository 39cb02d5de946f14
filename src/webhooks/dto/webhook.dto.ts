import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { DbInteger } from '../../kernel/db-integer.validator';
import { PageQuery } from '../../kernel/pagination';
import { RequiredText } from '../../kernel/required-text.validator';
import { toInteger } from '../../kernel/transforms';
import { ApiIntegerInput } from '../../kernel/openapi.formats';
import { EVENT_TYPES } from '../../outbox/event-catalog';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../webhook-delivery.entity';
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
}

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
