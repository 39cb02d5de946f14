import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { hashSecret, issueSecret } from '../src/tokens/token-secret';
import { BENCH_COMPANY_ID } from './seed';

/** One load pattern: a method and a path (drawn anew for every request), and a body for writes. */
export interface Scenario {
  name: string;
  /** Which server answers it: the app, or a reference (bench/plain-server.ts, bench/bare-nest.ts). */
  target: 'app' | 'plain' | 'bare';
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => string;
  /** Headers drawn anew for every request, beside the token and the content type. */
  headers?: () => Record<string, string>;
  /** Sent without the partner token (the hello route). */
  anonymous?: boolean;
  /** A list filter, compared between the small and the large database. */
  filter?: boolean;
}

/** What the scenarios draw from: real ids and tracking numbers of the bench company. */
export interface Samples {
  token: string;
  orderIds: number[];
  editableIds: number[];
  trackingNumbers: string[];
  now: Date;
}

/** For listing the scenarios without drawing from a database: their paths and bodies are never called. */
export const NO_SAMPLES: Samples = {
  token: '',
  orderIds: [],
  editableIds: [],
  trackingNumbers: [],
  now: new Date(0),
};

const pick = <T>(values: T[]): T => values[Math.floor(Math.random() * values.length)];
const day = (date: Date, plusDays: number) =>
  new Date(date.getTime() + plusDays * 86_400_000).toISOString().slice(0, 10);

/** Issues a partner token for the bench company (stored hashed, as the API would) and samples its data. */
export async function prepareSamples(url: string): Promise<Samples> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const secret = issueSecret();
    await client.query(
      `INSERT INTO api_tokens (token_hash, prefix, role, user_name, company_id) VALUES ($1, $2, 'partner', 'bench', $3)`,
      [hashSecret(secret.token), secret.prefix, BENCH_COMPANY_ID],
    );
    const ids = async (where: string) =>
      (
        await client.query<{ id: number }>(
          `SELECT id FROM orders WHERE company_id = $1 AND ${where} ORDER BY random() LIMIT 2000`,
          [BENCH_COMPANY_ID],
        )
      ).rows.map((row) => row.id);
    const trackings = await client.query<{ tracking_number: string }>(
      'SELECT tracking_number FROM trackings WHERE company_id = $1 ORDER BY random() LIMIT 2000',
      [BENCH_COMPANY_ID],
    );
    const newest = await client.query<{ created_at: Date }>(
      'SELECT max(created_at) AS created_at FROM orders',
    );
    return {
      token: secret.token,
      orderIds: await ids('true'),
      editableIds: await ids(`state = 'PLACED' AND order_type = 'REGULAR'`),
      trackingNumbers: trackings.rows.map((row) => row.tracking_number),
      now: newest.rows[0].created_at,
    };
  } finally {
    await client.end();
  }
}

let placed = 0;
/** A placement of the bench company's product 1, a new house number each time. */
export const placementBody = () => ({
  first_name: 'Jana',
  last_name: 'Nováková',
  consignee: 'Bistro Bench',
  email: 'jana@example.com',
  phone: '+421900123456',
  zip: '81101',
  city: 'Bratislava',
  street: 'Obchodná',
  house_number: String((placed += 1)),
  product_id: 1,
  product_variation_id: 1,
  login: 'bistro-bench',
  password: 'device-secret',
  order_type: 'REGULAR',
  merchant_id: 'M-BENCH',
  note: 'Ring twice',
});
const placement = () => JSON.stringify(placementBody());

const LIST = '/api/v2/order';
export const HELLO = 'hello: GET /health/live';
export const BARE_HELLO = 'bare NestJS: GET /health/live';
export const PLAIN_ONE = 'plain: GET /order/{id}';
export const PLAIN_PAGE = 'plain: GET /order page 1';

/** The list filters of CONTRACT §4.2, each with values a partner would send, drawn from the data. */
export function filterScenarios(samples: Samples): Scenario[] {
  const filter = (name: string, query: () => string): Scenario => ({
    name: `GET /order?${name}`,
    target: 'app',
    method: 'GET',
    path: () => `${LIST}?${query()}`,
    filter: true,
  });
  return [
    filter('order_id', () => `order_id=${pick(samples.orderIds)}`),
    filter(
      'created_from&created_to',
      () => `created_from=${day(samples.now, -395)}&created_to=${day(samples.now, -365)}`,
    ),
    filter('tracking_number', () => `tracking_number=${pick(samples.trackingNumbers)}`),
    filter('delivered=true', () => 'delivered=true'),
    filter('delivered=false', () => 'delivered=false'),
    filter(
      'delivered_from&delivered_to',
      () => `delivered_from=${day(samples.now, -7)}&delivered_to=${day(samples.now, 1)}`,
    ),
    filter('order_type', () => 'order_type=RETURN'),
    filter('state', () => 'state=PLACED'),
    filter('updated_from', () => `updated_from=${day(samples.now, -1)}`),
  ];
}

/** Every scenario of the issue, in run order: reads first, writes last (writes move updated_at). */
export function allScenarios(samples: Samples): Scenario[] {
  const get = (name: string, target: Scenario['target'], path: () => string): Scenario => ({
    name,
    target,
    method: 'GET',
    path,
  });
  return [
    { ...get(HELLO, 'app', () => '/health/live'), anonymous: true },
    { ...get(BARE_HELLO, 'bare', () => '/health/live'), anonymous: true },
    get('GET /order/{id}', 'app', () => `${LIST}/${pick(samples.orderIds)}`),
    get('GET /order page 1', 'app', () => LIST),
    ...filterScenarios(samples),
    get('GET /product', 'app', () => '/api/v2/product'),
    get(PLAIN_ONE, 'plain', () => `${LIST}/${pick(samples.orderIds)}`),
    get(PLAIN_PAGE, 'plain', () => LIST),
    { name: 'POST /order', target: 'app', method: 'POST', path: () => LIST, body: placement },
    {
      name: 'POST /order with Idempotency-Key',
      target: 'app',
      method: 'POST',
      path: () => LIST,
      body: placement,
      headers: () => ({ 'idempotency-key': randomUUID() }),
    },
    {
      name: 'POST /order/{id}/update',
      target: 'app',
      method: 'POST',
      path: () => `${LIST}/${pick(samples.editableIds)}/update`,
      body: () => JSON.stringify({ city: `City ${Math.floor(Math.random() * 1e6)}` }),
    },
  ];
}
