import type { ApiFormats } from '../../platform/formats/api-formats';
import type { SecretRotation } from '../webhooks.service';
import type { RotateWebhookSecretDto } from './webhook.dto';

/** The operation descriptions the admin and the partner routes share (CONTRACT §6). */
export const ENDPOINT_SETTINGS =
  'Changes the event types the endpoint receives (`null`: every type, those declared later too) and disables ' +
  'or enables it; a field left out stays as it is. A disabled endpoint is sent nothing: its waiting ' +
  'deliveries, and one per event of its types meanwhile, wait as `paused`. Enabled again, the paused ' +
  'deliveries are sent at once, except those older than the 24-hour retry window, which are given up ' +
  '(`failed`; the events feed still has them). A deleted endpoint is 404.';

export const SECRET_ROTATION =
  'Gives the endpoint a new signing secret, shown in this response only, and keeps the current one signing ' +
  'beside it until `previous_secret_expires_at` (at most 7 days ahead; 24 hours when left out or null; a time ' +
  'not ahead ends it at once). Meanwhile every delivery carries two `v1,` signatures in `webhook-signature`, so a receiver ' +
  'verifying with either secret accepts it (Standard Webhooks); afterwards only the new secret verifies. A ' +
  'rotation during an overlap drops the secret before the current one. Secrets are stored sealed, never ' +
  'shown again.';

/** The rotation a request asks for, its end read in the service time zone. */
export function toSecretRotation(body: RotateWebhookSecretDto, formats: ApiFormats): SecretRotation {
  return {
    secret: body.secret,
    previousSecretExpiresAt: body.previous_secret_expires_at
      ? (formats.parseDateTime(body.previous_secret_expires_at) ?? undefined)
      : undefined,
  };
}
