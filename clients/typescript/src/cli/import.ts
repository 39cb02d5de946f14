import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { RestaurantOrdersClient } from '../client.js';
import type { ImportResult } from '../imports.js';
import { CliError, type CliIo } from './io.js';

/** The exit code of an import whose file was taken but some of whose lines were refused. */
export const SOME_LINES_REFUSED = 2;

export interface ImportOptions {
  format?: 'csv' | 'ndjson';
  dryRun?: boolean;
  idempotencyKey?: string;
  pollInterval: number;
  url?: string;
}

const FORMATS_BY_EXTENSION: Record<string, 'csv' | 'ndjson'> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/**
 * `import <file>` (CONTRACT §4.11): uploads the file, shows the import's progress as it changes, then each refused
 * line with exactly the errors POST /order gives it, and a summary. Returns the exit code: 0 when every line was
 * placed (or, in a dry run, is valid), SOME_LINES_REFUSED when the import completed with refused lines; a file
 * the service refuses whole (400), or one that cannot be read, is a CliError or the service's error.
 */
export async function importFile(
  client: RestaurantOrdersClient,
  io: CliIo,
  file: string,
  options: ImportOptions,
): Promise<number> {
  const format = options.format ?? FORMATS_BY_EXTENSION[extname(file).toLowerCase()];
  if (format === undefined)
    throw new CliError(
      `Cannot tell the format of ${file} from its name: add --format csv or --format ndjson.`,
    );
  let content: Uint8Array;
  try {
    content = new Uint8Array(await readFile(file));
  } catch (error) {
    throw new CliError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  const done = options.dryRun ? 'valid' : 'placed';
  let shown = '';
  const refused: ImportResult[] = [];
  let fine = 0;
  for await (const result of client.importOrders(content, {
    format,
    dryRun: options.dryRun,
    idempotencyKey: options.idempotencyKey,
    pollIntervalMs: options.pollInterval,
    onProgress: (progress) => {
      const line =
        `Import ${progress.id}: ${progress.state}, ${progress.placed + progress.failed} of ${progress.total} ` +
        `lines done (${progress.placed} ${done}, ${progress.failed} refused)`;
      if (line !== shown) io.out((shown = line));
    },
  })) {
    if (result.errors === undefined) fine += 1;
    else refused.push(result);
  }
  for (const { line, errors } of refused) {
    const messages = Object.entries(errors ?? {}).map(([field, list]) => `${field}: ${list.join(' ')}`);
    io.out(`line ${line}: ${messages.join('; ')}`);
  }
  io.out(`${fine} ${done}, ${refused.length} refused.`);
  return refused.length === 0 ? 0 : SOME_LINES_REFUSED;
}
