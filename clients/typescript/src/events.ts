import type { Client } from 'openapi-fetch';
import { delay } from './delay.js';
import { RestaurantOrdersError } from './errors.js';
import type { paths } from './schema.js';
import type { WebhookEvent } from './webhooks.js';

/** How long a follower waits after reaching the end of the feed before it asks again, unless told otherwise. */
const DEFAULT_POLL_INTERVAL_MS = 5_000;

export interface EventFeedOptions {
  /** The id of the last event you processed (`evt_1042`): the feed starts after it. Default: your oldest event. */
  after?: string;
  /**
   * At the end of the feed (an empty page), keep asking every `pollIntervalMs` for new events instead of ending
   * (default false: the loop ends once every event so far is read). Stop a follower with `signal`.
   */
  follow?: boolean;
  /** With `follow`, the wait between two requests at the end of the feed, in milliseconds (default 5000). */
  pollIntervalMs?: number;
  /** Aborting it ends the loop quietly, also during a wait or a request. */
  signal?: AbortSignal;
}

/**
 * The company's events (`GET /api/v2/events`), oldest first: each page asks for the events `after` the last one
 * it yielded, so none is skipped or repeated; a page that fails throws a RestaurantOrdersError. Keep the id of
 * the last event you processed to start from it next time.
 */
export async function* eventFeed(
  client: Client<paths>,
  { after, follow = false, pollIntervalMs = DEFAULT_POLL_INTERVAL_MS, signal }: EventFeedOptions = {},
): AsyncGenerator<WebhookEvent, void, undefined> {
  let cursor = after;
  try {
    while (!signal?.aborted) {
      const { data, error, response } = await client.GET('/api/v2/events', {
        params: { query: cursor === undefined ? {} : { after: cursor } },
        signal,
      });
      if (data === undefined) throw new RestaurantOrdersError(response, error);
      for (const event of data.data) {
        yield event;
        cursor = event.id;
      }
      if (data.data.length > 0) continue;
      if (!follow) return;
      await delay(pollIntervalMs, signal);
    }
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}
