import { ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ApiFormats } from '../../platform/formats/api-formats';
import { MessageBody } from '../../platform/openapi/openapi.decorators';
import { EndpointLimitError } from '../webhooks.errors';
import { MAX_ENDPOINTS_PER_COMPANY, type SecretRotation, type WebhookSettings } from '../webhooks.service';
import type { RotateWebhookSecretDto, UpdateWebhookDto } from './webhook.dto';

/** The operation descriptions the admin and the partner routes share (CONTRACT §6). */
export const ENDPOINT_SETTINGS =
  "Changes the endpoint's `url` (under the rules of registration: http or https, a public address, checked " +
  'again at every connection; the deliveries waiting go to the new URL), the event types it receives (`null`: ' +
  'every type, those declared later too), and disables or enables it; a field left out stays as it is, and the ' +
  'answer is the endpoint as it now is. A disabled endpoint is sent nothing: its waiting ' +
  'deliveries, and one per event of its types meanwhile, wait as `paused`. Enabled again, the paused ' +
  'deliveries are sent at once, except those older than the 24-hour retry window, which are given up ' +
  '(`failed`; the events feed still has them). A deleted endpoint is 404.';

/** The registration's 409: the company has as many endpoints as it may. */
export const ApiEndpointLimitConflict = () =>
  ApiResponse({
    status: 409,
    description: `The company already has ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints (deleted ones do not count), the most it may have: delete one first.`,
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(MessageBody) },
        example: { message: new EndpointLimitError(MAX_ENDPOINTS_PER_COMPANY).message },
      },
    },
  });

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

/** The change a request asks for, as the service takes it. */
export const toSettings = (body: UpdateWebhookDto): WebhookSettings => ({
  url: body.url,
  eventTypes: body.event_types,
  enabled: body.enabled,
});
