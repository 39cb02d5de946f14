import { Client } from 'pg';
import request from 'supertest';
import type { QueryRunner } from 'typeorm';
import { DeliveryEventType1795590000000 } from '../migrations/1795590000000-DeliveryEventType';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { runMigrations } from './harness/cli';
import { eventually } from './harness/eventually';
import { createTestDatabase } from './harness/test-database';

/** Rows per table: enough that reading the table, or the endpoint's whole index, costs more than the filter's index. */
const ROWS = 20_000;
/** One delivery in this many is of the rare type. */
const RARE_EVERY = 1_000;

/** Every index a plan (EXPLAIN's JSON) reads, at any depth. */
function indexesOf(plan: unknown): string[] {
  if (Array.isArray(plan)) return plan.flatMap(indexesOf);
  if (plan === null || typeof plan !== 'object') return [];
  const node = plan as Record<string, unknown>;
  return [
    ...(typeof node['Index Name'] === 'string' ? [node['Index Name']] : []),
    ...Object.values(node).flatMap(indexesOf),
  ];
}

/**
 * The list filters are index-backed: each filter's statement, exactly as the service sends it (its request's
 * log line with LOG_SQL), is planned with the request's values on tables of tens of thousands of rows, where
 * reading the table costs more than the index; the plan must read the filter's index. A statement no index
 * serves, or a dropped index, fails here.
 */
describe('the list filters read their indexes', () => {
  let service: TestApp;
  let admin: string;
  let endpointId: number;
  let requests = 0;

  /** The statements one admin GET sent, and its response. */
  const sent = async (path: string): Promise<{ statements: string[]; body: { data: { id: number }[] } }> => {
    requests += 1;
    const requestId = `list-index-${requests}`;
    const response = await request(service.url)
      .get(`/api/v2/admin${path}`)
      .set({ Authorization: `Bearer ${admin}`, 'X-Request-Id': requestId })
      .expect(200);
    let statements: string[] | undefined;
    await eventually(
      () =>
        (statements = service.logs().find((line) => line.requestId === requestId)?.sql as string[]) !==
        undefined,
      () => `no log line for ${requestId}`,
    );
    return { statements: statements!, body: response.body };
  };

  /** The indexes read by the plan of the one statement that filters `table` by `condition`, with `values`. */
  const indexesRead = async (
    statements: string[],
    table: string,
    condition: string,
    values: unknown[],
  ): Promise<string[]> => {
    const reading = statements.filter(
      (statement) => statement.includes(`FROM "${table}"`) && statement.includes(condition),
    );
    expect(reading).toHaveLength(1);
    const parameters = new Set(reading[0].match(/\$\d+/g) ?? []);
    expect(parameters.size).toBe(values.length);
    const { rows } = await service.db.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) ${reading[0]}`,
      values,
    );
    return indexesOf(rows[0]['QUERY PLAN']);
  };

  beforeAll(async () => {
    service = await startApp({
      env: {
        LOG_SQL: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        RATE_LIMIT_PER_MINUTE: '10000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '10000',
      },
    });
    admin = await issueAdminToken(service);
    const company = await request(service.url)
      .post('/api/v2/admin/companies')
      .set('Authorization', `Bearer ${admin}`)
      .send({ name: 'Index Bistro', site: 'SK' })
      .expect(201);
    const companyId = company.body.id as number;
    const endpoint = await request(service.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: companyId, url: 'http://127.0.0.1:9/receiver' })
      .expect(201);
    endpointId = endpoint.body.id as number;
    // Each table of the admin lists gets ROWS rows whose text holds no "quokka", and one that does.
    await service.db.query(
      `INSERT INTO companies (name, site)
       SELECT CASE WHEN g = $1 / 2 THEN 'The Quokka Café' ELSE 'Bistro ' || g END, 'SK' FROM generate_series(1, $1) g`,
      [ROWS],
    );
    await service.db.query(
      `INSERT INTO products (name)
       SELECT CASE WHEN g = $1 / 2 THEN 'Quokka terminal' ELSE 'Terminal ' || g END FROM generate_series(1, $1) g`,
      [ROWS],
    );
    await service.db.query(
      `INSERT INTO api_tokens (token_hash, prefix, role, user_name)
       SELECT sha256(('token ' || g)::bytea), 'roa_seed', 'logistics',
         CASE WHEN g = $1 / 2 THEN 'quokka.courier' ELSE 'courier-' || g END
       FROM generate_series(1, $1) g`,
      [ROWS],
    );
    await service.db.query(
      `INSERT INTO webhook_endpoints (company_id, url, secret, active)
       SELECT $2, CASE WHEN g = $1 / 2 THEN 'https://quokka.example/hook' ELSE 'https://receiver' || g || '.example/hook' END,
         'unused', false
       FROM generate_series(1, $1) g`,
      [ROWS, companyId],
    );
    // The endpoint's deliveries, already succeeded (the dispatcher leaves them), one in RARE_EVERY of a rare type.
    await service.db.query(
      `WITH event AS (
         INSERT INTO events (company_id, order_id, type, data, transaction_id)
         SELECT $1, g, CASE WHEN g % $3 = 0 THEN 'order.delivery_error' ELSE 'order.state_changed' END, '{}', 1
         FROM generate_series(1, $2) g
         RETURNING id, type)
       INSERT INTO webhook_deliveries (event_id, event_type, endpoint_id, next_attempt_at, status, delivered_at)
       SELECT id, type, $4, now(), 'succeeded', now() FROM event ORDER BY id`,
      [companyId, ROWS, RARE_EVERY, endpointId],
    );
    // VACUUM, not only ANALYZE: it also moves the GIN indexes' pending entries (fastupdate) into the index, as
    // autovacuum does after a bulk insert; until then the planner counts them and may prefer a scan.
    await service.db.query(
      'VACUUM ANALYZE companies, products, api_tokens, webhook_endpoints, webhook_deliveries',
    );
  });

  afterAll(async () => {
    await service?.stop();
  });

  it.each([
    ['/companies?name=QUOKKA', 'companies', 'companies_name_trgm_idx'],
    ['/products?name=quokka', 'products', 'products_name_trgm_idx'],
    ['/tokens?user_name=Quokka', 'api_tokens', 'api_tokens_user_name_trgm_idx'],
    ['/webhooks?url=quokka', 'webhook_endpoints', 'webhook_endpoints_url_trgm_idx'],
  ])('GET /admin%s finds its one row through %s’s trigram index', async (path, table, index) => {
    const { statements, body } = await sent(path);
    expect(body.data).toHaveLength(1);
    expect(await indexesRead(statements, table, 'ILIKE', ['%quokka%'])).toContain(index);
  });

  it('reads the deliveries of a rare event type through the endpoint and type index, newest first', async () => {
    const { statements, body } = await sent(
      `/webhooks/${endpointId}/deliveries?event_type=order.delivery_error&per_page=5`,
    );
    const { rows } = await service.db.query<{ id: string }>(
      `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.endpoint_id = $1 AND e.type = 'order.delivery_error' ORDER BY d.id DESC LIMIT 5`,
      [endpointId],
    );
    expect(body.data.map((row) => String(row.id))).toEqual(rows.map((row) => row.id));
    expect(
      await indexesRead(statements, 'webhook_deliveries', '"event_type" =', [
        endpointId,
        'order.delivery_error',
      ]),
    ).toEqual(['webhook_deliveries_endpoint_type_idx']);
  });
});

describe('the delivery type migration (1795590000000)', () => {
  it('fills the type of the deliveries there before it, in batches, and of those the previous version inserts after it', async () => {
    const url = await createTestDatabase();
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      // The schema of the version before it, holding deliveries of three batches' worth.
      await new DeliveryEventType1795590000000().down({
        query: (sql: string) => db.query(sql),
      } as unknown as QueryRunner);
      await db.query(`DELETE FROM migrations WHERE name = 'DeliveryEventType1795590000000'`);
      const company = await db.query<{ id: number }>(
        `INSERT INTO companies (name, site) VALUES ('Migrated Bistro', 'SK') RETURNING id`,
      );
      const endpoint = await db.query<{ id: number }>(
        `INSERT INTO webhook_endpoints (company_id, url, secret, active)
         VALUES ($1, 'https://r.example/', 'unused', false) RETURNING id`,
        [company.rows[0].id],
      );
      // Events and their deliveries as the previous version writes them: the delivery has no type.
      const previousVersionInsert = (count: number) =>
        db.query(
          `WITH event AS (
             INSERT INTO events (company_id, order_id, type, data, transaction_id)
             SELECT $1, g, CASE WHEN g % 3 = 0 THEN 'order.placed' ELSE 'order.comment' END, '{}', 1
             FROM generate_series(1, $3) g
             RETURNING id)
           INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at, status)
           SELECT event.id, $2, now(), 'cancelled' FROM event`,
          [company.rows[0].id, endpoint.rows[0].id, count],
        );
      await previousVersionInsert(25_000);

      const migrated = await runMigrations(url);
      expect(migrated).toMatchObject({ code: 0, json: { applied: ['DeliveryEventType1795590000000'] } });
      await previousVersionInsert(3);

      const { rows } = await db.query<{ deliveries: string; typed: string }>(
        `SELECT count(*) AS deliveries, count(*) FILTER (WHERE d.event_type = e.type) AS typed
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`,
      );
      expect(rows[0]).toEqual({ deliveries: '25003', typed: '25003' });
      const column = await db.query(
        `SELECT is_nullable FROM information_schema.columns
         WHERE table_name = 'webhook_deliveries' AND column_name = 'event_type'`,
      );
      expect(column.rows).toEqual([{ is_nullable: 'NO' }]);
      const leftovers = await db.query(
        `SELECT conname FROM pg_constraint WHERE conname = 'webhook_deliveries_event_type_not_null'
         UNION ALL SELECT indexrelid::regclass::text FROM pg_index
         WHERE indexrelid = 'webhook_deliveries_endpoint_type_idx'::regclass AND NOT indisvalid`,
      );
      expect(leftovers.rows).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('builds again an index that an interrupted concurrent build left invalid', async () => {
    const url = await createTestDatabase();
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      // What a build cancelled half-way leaves: the index there, marked invalid, and the migration not recorded.
      await db.query(`DELETE FROM migrations WHERE name = 'ContainsFilterIndexes1795590000100'`);
      await db.query(
        `UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'companies_name_trgm_idx'::regclass`,
      );

      const migrated = await runMigrations(url);
      expect(migrated).toMatchObject({ code: 0, json: { applied: ['ContainsFilterIndexes1795590000100'] } });
      const invalid = await db.query(
        `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE NOT indisvalid`,
      );
      expect(invalid.rows).toEqual([]);
      const rebuilt = await db.query(`SELECT 1 FROM pg_class WHERE relname = 'companies_name_trgm_idx'`);
      expect(rebuilt.rowCount).toBe(1);
    } finally {
      await db.end();
    }
  });
});
