import { idParam } from '../platform/http/id-param.pipe';
import { WebhookNotFoundError } from './webhooks.errors';

/** A webhook endpoint's path id: anything that names none is the same 404 as a missing endpoint. */
export const webhookIdParam = () => idParam(() => new WebhookNotFoundError());
