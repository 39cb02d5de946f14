import { randomUUID } from 'node:crypto';
import type { RestaurantOrdersClient } from '../client.js';
import { delay } from '../delay.js';
import { RestaurantOrdersError } from '../errors.js';
import type { CliIo } from './io.js';
import type { TailOptions } from './program.js';

/** One entry of the request log (CONTRACT §4.12), as `GET /api/v2/requests` lists it. */
interface LoggedRequest {
  request_id: string;
  created_at: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  user_name: string;
  /** The error body of a 4xx or 5xx answer. */
  response_body: { message?: unknown } | null;
}

interface RequestPage {
  data: LoggedRequest[];
}

type UntypedGet = (
  path: string,
  init: {
    params: { query: Record<string, string | number> };
    headers: Record<string, string>;
    signal: AbortSignal;
  },
) => Promise<{ data?: RequestPage; error?: unknown; response: Response }>;

/** The most pages read back at once when more requests came in than one page holds. */
const MAX_PAGES_PER_POLL = 8;
const PAGE_SIZE = 25;
/** The request ids remembered, to tell new entries from ones already printed. */
const REMEMBERED = 2_000;

/**
 * `logs tail`: the request log from now on, one line per request, oldest first, with the API's filters. It asks
 * for the newest page every `pollInterval` and prints what it has not printed; its own requests (their request
 * ids carry a prefix of this run's) are not shown.
 */
export async function tailRequests(
  client: RestaurantOrdersClient,
  io: CliIo,
  options: TailOptions,
): Promise<void> {
  const { signal } = io;
  const prefix = `logs-tail-${randomUUID()}-`;
  let sent = 0;
  const get = client.GET as unknown as UntypedGet;
  const filters: Record<string, string | number> = {};
  if (options.status !== undefined) filters.status = options.status;
  if (options.route !== undefined) filters.route = options.route;
  if (options.tokenId !== undefined) filters.token_id = options.tokenId;
  const page = async (number: number): Promise<LoggedRequest[]> => {
    const { data, error, response } = await get('/api/v2/requests', {
      params: { query: { ...filters, page: number, per_page: PAGE_SIZE } },
      headers: { 'X-Request-Id': `${prefix}${(sent += 1)}` },
      signal,
    });
    if (data === undefined) throw new RestaurantOrdersError(response, error);
    return data.data;
  };
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
        if (!entry.request_id.startsWith(prefix)) io.out(line(entry));
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
