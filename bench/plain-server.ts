import { createServer, type ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { pageJson } from '../src/kernel/pagination';
import { parseSealingKey, unseal } from '../src/kernel/sealed-secret';
import { ORDER_COMMENTS_FIELD } from '../src/comments/order-view.comments';
import { orderJsonTextSelect, withCredentialsText } from '../src/orders/persistence/order-json';
import { contributeToOrderView } from '../src/orders/persistence/order-view';
import { BENCH_COMPANY_ID } from './seed';

/**
 * The ceiling of Node itself: node:http and pg answering GET /api/v2/order/{id} and GET /api/v2/order with
 * the SQL and the JSON of the service (order-json.ts: PostgreSQL's JSON text, sent as it is, with the device
 * credentials opened and put in place), and nothing else: no framework, no authentication, no rate limit, no
 * validation, no logging. The company is fixed (the bench company). Each statement is sent as the service
 * sends it: the single order as a prepared statement (PreparedStatements), the page unnamed.
 */
const PER_PAGE = 25;
const ZONE = 'UTC';
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
/** The credentials are opened as the service opens them (AES-256-GCM): that work is part of the ceiling. */
const key = parseSealingKey(process.env.DEVICE_CREDENTIALS_KEY ?? '');
const opener = {
  deviceCredentials: (stored: { login: string; password: string }) => ({
    login: unseal(key, stored.login),
    password: unseal(key, stored.password),
  }),
};

// The order object carries its comments, as the comments module contributes them in the service.
contributeToOrderView('comments', ORDER_COMMENTS_FIELD);

const ONE = `SELECT ${orderJsonTextSelect('o', '$3', 'comments')} FROM orders o WHERE o.id = $1 AND o.company_id = $2`;
const PAGE = `SELECT ${orderJsonTextSelect('p', '$3', 'partner_comments')}
  FROM (SELECT o.* FROM orders o WHERE o.company_id = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT $2) p
  ORDER BY created_at DESC, id DESC`;

function send(response: ServerResponse, status: number, body: unknown): void {
  const json = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(json);
}

async function answer(path: string, host: string, response: ServerResponse): Promise<void> {
  if (path === '/health') return send(response, 200, { status: 'ok' });
  const one = /^\/api\/v2\/order\/(\d+)$/.exec(path);
  if (one) {
    const { rows } = await pool.query({
      name: 'one',
      text: ONE,
      values: [Number(one[1]), BENCH_COMPANY_ID, ZONE],
    });
    if (rows.length === 0) return send(response, 404, { message: 'Order not found.' });
    return send(response, 200, withCredentialsText(rows[0], opener));
  }
  if (path === '/api/v2/order') {
    const { rows } = await pool.query(PAGE, [BENCH_COMPANY_ID, PER_PAGE + 1, ZONE]);
    const base = `http://${host}${path}`;
    return send(
      response,
      200,
      pageJson({
        data: rows.slice(0, PER_PAGE).map((row) => withCredentialsText(row, opener)),
        links: {
          first: `${base}?page=1`,
          last: null,
          prev: null,
          next: rows.length > PER_PAGE ? `${base}?page=2` : null,
        },
        meta: {
          current_page: 1,
          from: 1,
          path: base,
          per_page: PER_PAGE,
          to: Math.min(rows.length, PER_PAGE),
        },
      }),
    );
  }
  send(response, 404, { message: 'Not found.' });
}

const server = createServer((request, response) => {
  answer((request.url ?? '/').split('?')[0], request.headers.host ?? 'localhost', response).catch(
    (error: unknown) => {
      console.error(error);
      send(response, 500, { message: 'Server error.' });
    },
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
