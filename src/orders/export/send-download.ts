import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/** How a write fails when the client closed the connection: nothing to report. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

export interface Download {
  contentType: string;
  filename: string;
}

/**
 * Streams `chunks` as an attachment, with backpressure: the next chunk is asked for only once the client has
 * taken the last. The first chunk is awaited before the status and headers go out, so a failure before it is
 * answered like any other error. A client that goes away stops the generator (its `finally` runs); a failure
 * after the response has started cuts the transfer short, so the client never mistakes a part for the whole.
 */
export async function sendDownload(
  response: Response,
  chunks: AsyncGenerator<string>,
  download: Download,
): Promise<void> {
  const first = await chunks.next();
  response.status(200);
  response.setHeader('Content-Type', download.contentType);
  response.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
  async function* all(): AsyncGenerator<string> {
    if (!first.done) yield first.value;
    yield* chunks;
  }
  try {
    await pipeline(Readable.from(all(), { objectMode: false }), response);
  } catch (error) {
    // The exception filter logs any other failure; the response has started, so it sends nothing more.
    if (!CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}
