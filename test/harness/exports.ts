import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Pool } from 'pg';
import { eventually } from './eventually';

/** The export slots held right now, on every instance (session advisory locks of the slots' connections). */
export const HELD_SLOTS = `SELECT count(*)::int AS count FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
    AND a.application_name = 'restaurant-orders-api:session'`;

/** `count` more orders of the company, each a copy of `orderId` (one statement: an export's worth in a second). */
export async function copyOrder(db: Pool, orderId: number, count: number): Promise<void> {
  const columns = (
    await db.query(
      `SELECT string_agg(quote_ident(column_name), ', ') AS list FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = 'orders' AND column_name <> 'id'`,
    )
  ).rows[0].list as string;
  await db.query(
    `INSERT INTO orders (${columns}) SELECT ${columns} FROM orders, generate_series(1, $2) WHERE id = $1`,
    [orderId, count],
  );
}

/** A client that sent the export request on a raw socket and never reads the answer; `closed` settles when it ends. */
export interface StalledClient {
  socket: Socket;
  closed: Promise<void>;
}

export async function stalledExport(origin: string, token: string): Promise<StalledClient> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  // The server resets the stalled client: the reset can reach the socket before the test reads what it holds.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await once(socket, 'connect');
  socket.pause();
  socket.write(
    `GET /api/v2/orders/export?format=ndjson HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  return { socket, closed };
}

/**
 * Starts an export and goes away as soon as its first chunk arrives (the connection destroyed); resolves with
 * the status, and the body of an answer that was not the file.
 */
export function abortAfterFirstChunk(
  origin: string,
  token: string,
  format: 'csv' | 'ndjson' = 'ndjson',
): Promise<{ status: number; body: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(`/api/v2/orders/export?format=${format}`, origin),
      { headers: { Authorization: `Bearer ${token}` } },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status === 200) {
          response.once('data', () => {
            call.destroy();
            resolve({ status, body: '' });
          });
          return;
        }
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status, body, retryAfter: response.headers['retry-after'] }));
      },
    );
    call.on('error', (error) => (call.destroyed ? undefined : reject(error)));
    call.end();
  });
}

/**
 * Issue 31's sequence: with the company's other slot taken by a stalled export (so each start needs the slot of
 * the download just aborted), `times` downloads, each aborted after its first chunk and started again at once.
 * Resolves with the answers that were not the file, and the stalled client, for the caller to end.
 */
export async function abortAndRestart(
  app: { url: string; db: Pool },
  token: string,
  times: number,
): Promise<{ refused: { status: number; body: string }[]; stalled: StalledClient }> {
  const stalled = await stalledExport(app.url, token);
  await eventually(
    async () => (await app.db.query(HELD_SLOTS)).rows[0].count === 1,
    () => 'The stalled export never took its slot',
    10_000,
  );
  const refused: { status: number; body: string }[] = [];
  for (let attempt = 0; attempt < times; attempt += 1) {
    const { status, body } = await abortAfterFirstChunk(app.url, token);
    if (status !== 200) refused.push({ status, body });
  }
  return { refused, stalled };
}
