import type { Request } from 'express';
import { invalidIdempotencyKey } from '../../idempotency/idempotency.errors';
import { isValidIdempotencyKey } from '../../idempotency/request-fingerprint';
import { IDEMPOTENCY_KEY_HEADER } from '../../platform/http/idempotency-headers';
import { fileError, MAX_IMPORT_BYTES } from '../import-file';
import { ImportMediaTypeError } from '../imports.errors';
import type { ImportFormat } from '../order-import.entities';

const MEDIA_TYPES: Record<string, ImportFormat> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' };

/** The file's format from its Content-Type: CSV or NDJSON, UTF-8 (no charset says UTF-8); else 415. */
export function importFormatOf(request: Request): ImportFormat {
  const [mediaType, ...parameters] = (request.headers['content-type'] ?? '').split(';');
  const format = MEDIA_TYPES[mediaType.trim().toLowerCase()];
  const otherCharset = parameters.some((parameter) => {
    const [name, value = ''] = parameter.split('=');
    return name.trim().toLowerCase() === 'charset' && !/^"?utf-8"?$/i.test(value.trim());
  });
  if (!format || otherCharset) throw new ImportMediaTypeError();
  return format;
}

/** The upload's Idempotency-Key, checked as on every route (CONTRACT §4), or undefined. */
export function uploadKeyOf(request: Request): string | undefined {
  const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) throw invalidIdempotencyKey();
  return key;
}

/**
 * The request's body as it arrives. A declared length over 50 MiB is refused before anything is read; a
 * client that sends nothing for `idleMs` (REQUEST_BODY_TIMEOUT_MS: for a file, the longest silence, not the whole
 * transfer), or goes away, ends the file with a 400 (the connection closed).
 * A file refused before its end leaves the request readable (not destroyed), and its rest is dropped.
 */
export async function* uploadedFile(request: Request, idleMs: number): AsyncGenerator<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES)
    throw fileError('The file is over 50 MiB.');
  const chunks = request
    .iterator({ destroyOnReturn: false })
    [Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let timer: NodeJS.Timeout | undefined;
  const silence = () =>
    new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), idleMs)));
  try {
    for (;;) {
      let next: IteratorResult<Buffer> | 'stalled';
      try {
        next = await Promise.race([chunks.next(), silence()]);
      } catch {
        next = { done: true, value: undefined };
      } finally {
        clearTimeout(timer);
      }
      if (next === 'stalled') {
        request.res?.setHeader('Connection', 'close');
        throw fileError(`The upload stalled: nothing arrived for ${idleMs / 1000} seconds.`);
      }
      if (next.done) break;
      yield next.value;
    }
    if (!request.complete) {
      request.res?.setHeader('Connection', 'close');
      throw fileError('The upload was cut off before the end of the file.');
    }
  } finally {
    // A file refused before its end: the rest is read and dropped, so the client gets the answer.
    if (!request.complete) request.resume();
  }
}
