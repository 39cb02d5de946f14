import type { Client } from 'openapi-fetch';
import { delay } from './delay.js';
import { RestaurantOrdersError } from './errors.js';
import type { components, paths } from './schema.js';

/** How long importOrders waits between two looks at a running import, unless told otherwise. */
const DEFAULT_POLL_INTERVAL_MS = 1_000;

/** An import's state and counts (`GET /api/v2/orders/imports/{id}`). */
export type OrderImport = components['schemas']['ImportResponse'];

/** One line's result: `{ line, order_id }` when placed, `{ line, errors }` (POST /order's errors map) when refused. */
export type ImportResult = components['schemas']['ImportResultResponse'];

export interface ImportOrdersOptions {
  /** `ndjson` (one POST /order body per line, the default) or `csv` (a header row of the export's columns). */
  format?: 'csv' | 'ndjson';
  /** Check every line with every rule and place nothing: the results say what would happen. */
  dryRun?: boolean;
  /**
   * The upload's Idempotency-Key (default: one the client makes, kept across its retries): upload the same file
   * again under your own key within 24 hours and you get the same import, never a second set of orders.
   */
  idempotencyKey?: string;
  /** The wait between two looks at the running import, in milliseconds (default 1000). */
  pollIntervalMs?: number;
  /** Told the import's state and counts after the upload and at every look. */
  onProgress?: (progress: OrderImport) => void;
  /** Aborting it stops waiting (the import goes on in the service) and ends the loop with the signal's reason. */
  signal?: AbortSignal;
}

const MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;

/**
 * Uploads a file of orders (`POST /api/v2/orders/imports`), waits until the import has ended, then yields each
 * line's result in line order, read as the service streams them. A refused file (400), or a failed request,
 * throws a RestaurantOrdersError; refused lines are results, not errors.
 */
export async function* importOrders(
  client: Client<paths>,
  file: string | Uint8Array | Blob,
  {
    format = 'ndjson',
    dryRun,
    idempotencyKey,
    pollIntervalMs = DEFAULT_POLL_INTERVAL_MS,
    onProgress,
    signal,
  }: ImportOrdersOptions = {},
): AsyncGenerator<ImportResult, void, undefined> {
  const uploaded = await client.POST('/api/v2/orders/imports', {
    params: { query: dryRun === undefined ? {} : { dry_run: dryRun } },
    headers: {
      'Content-Type': MEDIA_TYPES[format],
      ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
    },
    body: file as string,
    bodySerializer: (body: unknown) => body as string,
    signal,
  });
  if (uploaded.data === undefined) throw new RestaurantOrdersError(uploaded.response, uploaded.error);
  let progress: OrderImport = uploaded.data;
  const path = { path: { id: progress.id } };
  onProgress?.(progress);
  while (progress.state === 'queued' || progress.state === 'running') {
    await delay(pollIntervalMs, signal);
    const looked = await client.GET('/api/v2/orders/imports/{id}', { params: path, signal });
    if (looked.data === undefined) throw new RestaurantOrdersError(looked.response, looked.error);
    progress = looked.data;
    onProgress?.(progress);
  }
  const results = await client.GET('/api/v2/orders/imports/{id}/results', {
    params: path,
    parseAs: 'stream',
    signal,
  });
  if (results.data === undefined || results.data === null) {
    throw new RestaurantOrdersError(results.response, results.error);
  }
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of results.data as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line !== '') yield JSON.parse(line) as ImportResult;
  }
  rest += decoder.decode();
  if (rest.trim() !== '') yield JSON.parse(rest) as ImportResult;
}
