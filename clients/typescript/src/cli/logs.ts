import type { RestaurantOrdersClient, Schema } from '../client.js';
import { delay } from '../delay.js';
import { unwrap } from '../errors.js';
import type { CliIo } from './io.js';
import type { TailOptions } from './program.js';

/** One entry of the request log (CONTRACT §4.12), as `GET /api/v2/requests` lists it. */
type LoggedRequest = Schema<'RequestLogEntryResponse'>;

/**
 * How the tool's background requests (listen's feed, this command's own) name themselves in `X-Request-Id`, so
 * that `logs tail` leaves them out: what a partner follows is what its programs and its commands do.
 */
export const POLL_REQUEST_ID_PREFIX = 'restaurant-orders-poll-';

/** The most pages read back at once when more requests came in than one page holds. */
const MAX_PAGES_PER_POLL = 8;
const PAGE_SIZE = 25;
/** The request ids remembered, to tell new entries from ones already printed. */
const REMEMBERED = 2_000;

/**
 * `logs tail`: the request log from now on, one line per request, oldest first, with the API's filters. It asks
 * for the newest page every `pollInterval` and prints what it has not printed, except the tool's own polls (its
 * own and listen's, by their request ids).
 */
export async function tailRequests(
  client: RestaurantOrdersClient,
  io: CliIo,
  options: TailOptions,
): Promise<void> {
  const { signal } = io;
  const filters = { status: options.status, route: options.route, token_id: options.tokenId };
  const page = async (number: number): Promise<LoggedRequest[]> =>
    (
      await unwrap(
        client.listRequests({
          params: { query: { ...filters, page: number, per_page: PAGE_SIZE } },
          signal,
        }),
      )
    ).data;
  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value as string);
  };
  try {
    for (const entry of await page(1)) remember(entry.request_id);
    io.out('Following your request log. Ctrl-C stops.');
    while (!signal.aborted) {
      await delay(options.pollInterval, signal);
      const fresh: LoggedRequest[] = [];
      for (let number = 1; number <= MAX_PAGES_PER_POLL; number += 1) {
        const entries = await page(number);
        const unseen = entries.filter((entry) => !seen.has(entry.request_id));
        fresh.push(...unseen);
        if (unseen.length < entries.length || entries.length < PAGE_SIZE) break;
      }
      for (const entry of fresh.reverse()) {
        remember(entry.request_id);
        if (!entry.request_id.startsWith(POLL_REQUEST_ID_PREFIX)) io.out(line(entry));
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/** `2026-11-28T07:30  409  POST /api/v2/order/7/update  12 ms  alice  <request id>  <error message>`. */
function line(entry: LoggedRequest): string {
  const message = entry.response_body?.message;
  const error = typeof message === 'string' ? `  ${message}` : '';
  return `${entry.created_at}  ${entry.status}  ${entry.method} ${entry.path}  ${entry.duration_ms} ms  ${entry.user_name}  ${entry.request_id}${error}`;
}
