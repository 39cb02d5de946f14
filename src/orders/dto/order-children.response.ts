import { ApiDateTime } from '../../kernel/openapi.formats';

/* The child objects of an order: its trackings, detailed statuses, delivery errors and comments. */

export class TrackingResponse {
  /** @example "2026-11-22T09:15" */
  @ApiDateTime()
  status_date!: string | null;
  /** Free text from the fulfilment partner. @example "In transit" */
  status!: string | null;
  /** @example "2026-11-22T08:00" */
  @ApiDateTime()
  dispatch_date!: string | null;
  /** @example "2026-11-22T12:10" */
  @ApiDateTime()
  delivery_date!: string | null;
  /** @example "PKG123456789" */
  tracking_number!: string;
  /** @example "https://track.example.com/PKG123456789" */
  tracking_link!: string | null;
}

export class DetailedStatusResponse {
  /** @example "2026-11-22T09:15" */
  @ApiDateTime()
  status_date!: string;
  /** @example "Out for delivery" */
  status!: string;
  /** @example "Bratislava depot" */
  location!: string | null;
  /** @example "Courier has the parcel" */
  description!: string | null;
  /** @example "PKG123456789" */
  tracking_number!: string | null;
  /** @example "https://track.example.com/PKG123456789" */
  tracking_link!: string | null;
}

export class DeliveryErrorResponse {
  /** @example "Nobody at the address" */
  status!: string;
  /** @example "2026-11-22T10:30" */
  @ApiDateTime()
  date!: string;
  /** Comment, Information or Cancel. @example "Information" */
  resolution!: string;
  /** @example "Second attempt tomorrow" */
  comment!: string | null;
}

export class CommentResponse {
  /** @example 5 */
  id!: number;
  /** @example "Please deliver before noon." */
  partner_comment!: string;
  /** The user (token) who wrote it; one comment per user and order. @example "alice" */
  user_name!: string;
  /** @example "2026-11-22T07:40" */
  @ApiDateTime()
  created_at!: string;
  /** @example "2026-11-22T07:45" */
  @ApiDateTime()
  updated_at!: string;
}
