import type { Response } from 'express';

export interface Download {
  contentType: string;
  filename: string;
}

/** The status and headers of a download, which HEAD answers alone. */
export function startDownload(response: Response, download: Download): void {
  response.status(200);
  response.setHeader('Content-Type', download.contentType);
  response.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
}

/**
 * Resolves true once the client has taken what was written, false when it went away first. A client that takes
 * nothing for `stallTimeoutMs` is cut off with a reset, which also frees the socket's buffers in the kernel.
 */
function drained(response: Response, stallTimeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (taken: boolean) => {
      clearTimeout(stalled);
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(taken);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    const stalled = setTimeout(() => {
      response.socket?.resetAndDestroy();
      settle(false);
    }, stallTimeoutMs);
    response.on('drain', onDrain);
    response.on('close', onClose);
  });
}

/**
 * Streams `chunks` as an attachment, with backpressure: the next chunk is asked for only once the client has
 * taken the last. The first chunk is awaited before the status and headers go out, so a failure before it is
 * answered like any other error. A client that goes away, or stops reading for `stallTimeoutMs`, stops the
 * generator (its `finally` runs) and the call returns; a failure after the response has started cuts the
 * transfer short, so the client never mistakes a part for the whole.
 */
export async function sendDownload(
  response: Response,
  chunks: AsyncGenerator<string>,
  download: Download,
  stallTimeoutMs: number,
): Promise<void> {
  try {
    const first = await chunks.next();
    startDownload(response, download);
    for (let next = first; !next.done; next = await chunks.next()) {
      if (response.destroyed) return;
      if (!response.write(next.value) && !(await drained(response, stallTimeoutMs))) return;
    }
    response.end();
  } catch (error) {
    // The exception filter logs the failure and, once the response has started, sends nothing more.
    if (response.headersSent) response.destroy();
    throw error;
  } finally {
    await chunks.return(undefined);
  }
}
