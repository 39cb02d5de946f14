import type { Response } from 'express';

/**
 * Streams an import's results (NDJSON), chunk by chunk as they are read, waiting for the client to take each:
 * memory holds one chunk. A client that goes away ends the reading.
 */
export async function sendResults(response: Response, chunks: AsyncGenerator<string>): Promise<void> {
  response.status(200).type('application/x-ndjson');
  let gone = false;
  response.once('close', () => (gone = true));
  for await (const chunk of chunks) {
    if (gone) break;
    if (!response.write(chunk)) await drainedOrClosed(response);
  }
  response.end();
}

function drainedOrClosed(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}
