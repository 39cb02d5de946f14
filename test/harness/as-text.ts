import type { IncomingMessage } from 'node:http';
import type request from 'supertest';

/** Supertest keeps the file as text (and the OpenAPI hook checks it as the documented string). */
export function asText(response: request.Response, done: (error: Error | null, body: string) => void): void {
  const stream = response as unknown as IncomingMessage & { text?: string };
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => {
    stream.text = text;
    done(null, text);
  });
}
