import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { parseSealingKey, seal } from '../src/kernel/sealed-secret';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';

export interface SeedSize {
  orders: number;
  companies: number;
}

/** The partner the bench calls as: company 1, the largest (about 13 % of all orders, see `company_of`). */
export const BENCH_COMPANY_ID = 1;
export const PRODUCTS = 20;

/**
 * Every row is generated inside PostgreSQL (INSERT ... SELECT over generate_series: set-based multi-row
 * inserts, no round trip per row), deterministic for a given size (setseed). Proportions, for a history of
 * three years, newest orders last:
 * - companies: order share falls off steeply (company n's share ~ n^-2/3), so company 1 holds ~13 % of orders;
 * - orders: 90 % REGULAR, 7 % EXCHANGE, 3 % RETURN; 3 % TEST; older than ten days mostly COMPLETED, the
 *   last ten days spread over PLACED, SENT_TO_LOGISTICS, DISPATCHED, DELIVERED; updated_at a few days after
 *   created_at, never later than halfway from created_at to now (no pile-up of changes at "now");
 * - one tracking per order handed to logistics (two for every seventh), 1–4 detailed statuses per tracking
 *   by progress, a delivery error on ~2 % of them, a partner comment on ~12 % of orders (two on ~2 %).
 */
/**
 * Device credentials are stored sealed (AES-256-GCM), which PostgreSQL cannot do: the seed seals this many
 * login/password pairs in Node and the orders take them in turn. Reads open them as they open real ones.
 */
const SEALED_POOL = 1000;

function sealedCredentials(): { logins: string[]; passwords: string[] } {
  const key = parseSealingKey(BENCH_DEVICE_CREDENTIALS_KEY);
  const pool = Array.from({ length: SEALED_POOL }, (_, index) => index);
  return {
    logins: pool.map((index) => seal(key, `device-${index}`)),
    passwords: pool.map((index) => seal(key, `pw-${index.toString(16).padStart(8, '0')}`)),
  };
}

const STATEMENTS = [
  `INSERT INTO companies (id, name, site)
     SELECT c, 'Bench company ' || c, (ARRAY['SK','CZ','PL','HU','AT'])[1 + c % 5]
     FROM generate_series(1, $1::int) c`,
  `INSERT INTO products (id, name, active)
     SELECT p, 'Bench product ' || p, p <= ${PRODUCTS - 2} FROM generate_series(1, ${PRODUCTS}) p`,
  `INSERT INTO product_variations (id, product_id, name)
     SELECT 2 * p - 1 + v, p, 'Variation ' || (v + 1)
     FROM generate_series(1, ${PRODUCTS}) p, generate_series(0, 1) v WHERE p % 4 <> 0`,
  `INSERT INTO orders (id, company_id, site, state, order_type, original_order_id, first_name, last_name,
       consignee, email, phone, zip, city, street, house_number, floor, door, opening_hours, country,
       product_id, product_variation_id, login, password, test, note, corrected_order_id, merchant_id,
       oms_user_id, retail, dinein, shop_number, details, serial_number, final_completion_date, created_at,
       updated_at, version)
   SELECT g, company_id, (ARRAY['SK','CZ','PL','HU','AT'])[1 + company_id % 5], state, order_type,
       CASE WHEN order_type <> 'REGULAR' AND g > 100 THEN g - 1 - (g % 97) END,
       'First' || g % 997, 'Last' || g % 991, 'Bistro ' || company_id || '-' || g % 50,
       'guest' || g || '@example.com', '+4219' || lpad((g % 100000000)::text, 8, '0'),
       lpad((g % 99999)::text, 5, '0'), 'City ' || g % 300, 'Street ' || g % 1000, (g % 200)::text,
       CASE WHEN g % 3 = 0 THEN (g % 12)::text END, CASE WHEN g % 5 = 0 THEN 'B' END,
       CASE WHEN g % 2 = 0 THEN 'Mo-Fr 10:00-22:00' END, NULL,
       product_id, CASE WHEN product_id % 4 <> 0 THEN 2 * product_id - 1 + g % 2 END,
       ($3::text[])[1 + g % ${SEALED_POOL}], ($4::text[])[1 + g % ${SEALED_POOL}], state = 'TEST', CASE WHEN g % 4 = 0 THEN 'Ring twice' END, NULL,
       'M-' || company_id || '-' || g % 40, g % 5000, g % 7 = 0, g % 11 = 0, 'S-' || g % 90,
       CASE WHEN g % 10 = 0 THEN 'Back entrance, second door on the left' END,
       CASE WHEN state IN ('DELIVERED', 'COMPLETED') THEN 'SN-' || g END,
       CASE WHEN state = 'COMPLETED' THEN created_at + least(interval '5 days', (now() - created_at) / 2) END,
       created_at,
       created_at + least((now() - created_at) / 2, interval '1 day' * CASE state WHEN 'PLACED' THEN 0
         WHEN 'TEST' THEN 0 WHEN 'SENT_TO_LOGISTICS' THEN 0.5 WHEN 'DISPATCHED' THEN 1 WHEN 'CANCELLED' THEN 1
         ELSE 5 END),
       CASE state WHEN 'PLACED' THEN 1 WHEN 'TEST' THEN 1 ELSE 6 END
   FROM (
     SELECT g, company_id, created_at, product_id,
       CASE WHEN r_type < 0.90 THEN 'REGULAR' WHEN r_type < 0.97 THEN 'EXCHANGE' ELSE 'RETURN' END AS order_type,
       CASE
         WHEN r_state < 0.03 THEN 'TEST'
         WHEN created_at < now() - interval '10 days' THEN CASE WHEN r_state < 0.08 THEN 'CANCELLED' WHEN r_state < 0.16 THEN 'DELIVERED'
           ELSE 'COMPLETED' END
         ELSE CASE WHEN r_state < 0.05 THEN 'CANCELLED' WHEN r_state < 0.35 THEN 'PLACED'
           WHEN r_state < 0.55 THEN 'SENT_TO_LOGISTICS' WHEN r_state < 0.80 THEN 'DISPATCHED'
           WHEN r_state < 0.95 THEN 'DELIVERED' ELSE 'COMPLETED' END
       END AS state
     FROM (
       SELECT g, random() AS r_type, random() AS r_state,
         least($2::int, 1 + floor($2::int * power(random(), 3))::int) AS company_id,
         now() - interval '1095 days' * (1 - g::float8 / $1::int) AS created_at,
         1 + g % ${PRODUCTS - 2} AS product_id
       FROM generate_series(1, $1::int) g
     ) drawn
   ) typed`,
  `INSERT INTO trackings (order_id, company_id, tracking_number, status, status_date, dispatch_date,
       delivery_date, tracking_link, created_at, updated_at)
   SELECT o.id, o.company_id, 'PKG' || lpad(o.id::text, 9, '0') || '-' || k,
       CASE WHEN o.state IN ('DELIVERED', 'COMPLETED') THEN 'Delivered'
         WHEN o.state = 'DISPATCHED' THEN 'In transit' ELSE 'Label created' END,
       o.updated_at,
       CASE WHEN o.state <> 'SENT_TO_LOGISTICS' THEN o.created_at + interval '1 day' END,
       CASE WHEN o.state IN ('DELIVERED', 'COMPLETED') THEN least(now(), o.created_at + interval '3 days') END,
       'https://track.example.com/PKG' || o.id || '-' || k, o.created_at, o.updated_at
   FROM orders o, generate_series(1, CASE WHEN o.id % 7 = 0 THEN 2 ELSE 1 END) k
   WHERE o.state IN ('SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED')`,
  `INSERT INTO detailed_statuses (order_id, status, status_date, location, description, tracking_number,
       tracking_link, created_at)
   SELECT t.order_id, (ARRAY['Label created', 'Picked up', 'In transit', 'Delivered'])[s],
       t.created_at + interval '20 hours' * s, 'Depot ' || t.order_id % 40, 'Scan ' || s, t.tracking_number,
       t.tracking_link, t.created_at + interval '20 hours' * s
   FROM trackings t JOIN orders o ON o.id = t.order_id,
     generate_series(1, CASE o.state WHEN 'SENT_TO_LOGISTICS' THEN 1 WHEN 'DISPATCHED' THEN 2 + t.id % 2
       ELSE 4 END) s`,
  `INSERT INTO delivery_errors (order_id, status, date, resolution, comment, created_at)
   SELECT t.order_id, 'Nobody at the address', t.created_at + interval '2 days',
       (ARRAY['Comment', 'Information'])[1 + t.id % 2], 'Second attempt tomorrow', t.created_at + interval '2 days'
   FROM trackings t WHERE t.id % 50 = 0`,
  `INSERT INTO order_comments (order_id, user_name, partner_comment, created_at, updated_at)
   SELECT o.id, 'user-' || u, 'Please deliver before noon, order ' || o.id, o.created_at + interval '1 hour',
       o.created_at + interval '1 hour'
   FROM orders o, generate_series(1, CASE WHEN o.id % 50 = 0 THEN 2 ELSE 1 END) u
   WHERE o.id % 25 IN (0, 3, 7)`,
  ...['companies', 'products', 'product_variations', 'orders', 'trackings', 'detailed_statuses'].map(
    (table) => `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`,
  ),
];

const SEEDED_TABLES = ['orders', 'trackings', 'detailed_statuses', 'delivery_errors', 'order_comments'];

/**
 * Bulk loading is several times faster without the secondary indexes (rebuilt afterwards by sorting, from
 * the definitions the migrations made) and without per-row foreign-key triggers (the generated rows are
 * consistent by construction; skipped only when the role may, i.e. a superuser such as the embedded one).
 */
async function withoutIndexesAndTriggers(client: Client, load: () => Promise<void>): Promise<void> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS definition
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     WHERE t.relname = ANY($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    [SEEDED_TABLES],
  );
  for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
  await client.query('SET session_replication_role = replica').catch(() => undefined);
  await load();
  await client.query('RESET session_replication_role').catch(() => undefined);
  await client.query("SET maintenance_work_mem = '256MB'");
  for (const index of indexes) await client.query(index.definition);
}

/** Fills a freshly migrated bench database. */
export async function seed(url: string, size: SeedSize): Promise<number> {
  const started = Date.now();
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query('SELECT setseed(0.42)');
    await withoutIndexesAndTriggers(client, async () => {
      const { logins, passwords } = sealedCredentials();
      for (const statement of STATEMENTS) {
        const params = statement.startsWith('INSERT INTO orders')
          ? [size.orders, size.companies, logins, passwords]
          : statement.includes('$2')
            ? [size.orders, size.companies]
            : statement.startsWith('INSERT INTO companies')
              ? [size.companies]
              : [];
        await client.query(statement, params);
      }
    });
    for (const table of ['delivery_errors', 'order_comments']) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence('${table}', 'id'), greatest(1, (SELECT max(id) FROM ${table})))`,
      );
    }
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
  return Date.now() - started;
}

/** Drops and recreates `bench_<orders>` with the project's migrations, then seeds it. */
export async function seedBenchDatabase(size: SeedSize): Promise<number> {
  const server = await openBenchServer();
  try {
    const name = benchDatabaseName(size.orders);
    await server.recreate(name);
    return await seed(server.urlOf(name), size);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000000' },
      companies: { type: 'string', default: '500' },
    },
  });
  const size = { orders: Number(values.orders), companies: Number(values.companies) };
  if (
    !Number.isInteger(size.orders) ||
    size.orders < 100 ||
    !Number.isInteger(size.companies) ||
    size.companies < 1
  )
    throw new Error('usage: npm run bench:seed -- --orders 1000000 --companies 500');
  const ms = await seedBenchDatabase(size);
  console.log(
    `Seeded ${benchDatabaseName(size.orders)}: ${size.orders} orders, ${size.companies} companies in ${(ms / 1000).toFixed(1)} s`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
