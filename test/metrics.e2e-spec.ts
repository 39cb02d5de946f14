import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { findFreePort } from '../src/platform/database/free-port';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { startServiceExpectingFailure } from './harness/service';

const DOCKER = join(__dirname, '..', 'docker');

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of the one series `name{labels}` (labels matched exactly, in any order); 0 when absent. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]+=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (given === wanted) return Number(match[3]);
  }
  return 0;
}

/** The metric names a PromQL expression selects; throws when the expression does not parse. */
function selectedMetrics(expr: string): string[] {
  const query = expr.replace(/\$__rate_interval|\$__interval/g, '5m');
  const names: string[] = [];
  parser.parse(query).iterate({
    enter: (node) => {
      if (node.type.isError) throw new Error(`PromQL does not parse at ${node.from}: ${query}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(query.slice(node.from, node.to));
    },
  });
  return names;
}

describe('Prometheus metrics on their own port (METRICS_PORT)', () => {
  let service: TestApp;
  let metricsPort: number;
  let fixtures: Fixtures;
  let partner: Partner;
  let logisticsToken: string;

  beforeAll(async () => {
    metricsPort = await findFreePort();
    service = await startApp({
      env: {
        METRICS_PORT: String(metricsPort),
        RATE_LIMIT_PER_MINUTE: '4',
        WEBHOOK_DISPATCHER: 'false',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    const admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner();
    const logistics = await request(service.url)
      .post('/api/v2/admin/tokens')
      .set('Authorization', `Bearer ${admin}`)
      .send({ role: 'logistics', user_name: 'metrics-logistics' })
      .expect(201);
    logisticsToken = logistics.body.token as string;
    await request(service.url)
      .post('/api/v2/admin/webhooks')
      .set('Authorization', `Bearer ${admin}`)
      .send({ company_id: partner.companyId, url: 'http://127.0.0.1:9/hooks' })
      .expect(201);
  });

  afterAll(async () => {
    await service.stop();
  });

  it('is not served on the public port', async () => {
    await request(service.url).get('/metrics').expect(404, { message: 'Not found.' });
  });

  it('moves with traffic: requests by route template, refusals, orders placed and moved, the outbox', async () => {
    const product = await fixtures.product();
    const before = await scrape(metricsPort);
    const partnerAuth = `Bearer ${partner.token}`;
    const placed = await request(service.url)
      .post('/api/v2/order')
      .set('Authorization', partnerAuth)
      .send(orderBody(product.id))
      .expect(201);
    const orderId = String(placed.body.orders[0].order_id);
    const read = await request(service.url).get(`/api/v2/order/${orderId}`).set('Authorization', partnerAuth);
    expect(read.status).toBe(200);
    await request(service.url)
      .post(`/api/v2/logistics/orders/${orderId}/sent`)
      .set('Authorization', `Bearer ${logisticsToken}`)
      .set('If-Match', read.headers.etag)
      .expect(200);
    await request(service.url).get(`/api/v2/order/${orderId}`).set('Authorization', partnerAuth).expect(200);
    await request(service.url).get('/api/v2/product').set('Authorization', partnerAuth).expect(200);
    await request(service.url).get('/api/v2/product').set('Authorization', partnerAuth).expect(429);
    await request(service.url).get('/nope').expect(404);
    const after = await scrape(metricsPort);

    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    const getOrder = { method: 'GET', route: '/api/v2/order/:id', status: '200' };
    expect(moved('http_request_duration_seconds_count', getOrder)).toBe(2);
    expect(moved('http_request_duration_seconds_bucket', { ...getOrder, le: '+Inf' })).toBe(2);
    expect(
      moved('http_request_duration_seconds_count', { method: 'POST', route: '/api/v2/order', status: '201' }),
    ).toBe(1);
    expect(moved('rate_limit_refusals_total')).toBe(1);
    expect(
      moved('http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(moved('orders_placed_total', { test: 'false' })).toBe(1);
    expect(moved('order_state_transitions_total', { from: 'PLACED', to: 'SENT_TO_LOGISTICS' })).toBe(1);
    expect(after).not.toContain(`/order/${orderId}`);
    // The dispatcher is off, so the order's two events wait in the outbox for the endpoint.
    expect(valueOf(after, 'webhook_deliveries_due')).toBeGreaterThanOrEqual(2);
    expect(valueOf(after, 'webhook_oldest_due_age_seconds')).toBeGreaterThan(0);
    expect(valueOf(after, 'webhook_deliveries_failing')).toBe(0);
    expect(
      valueOf(after, 'db_pool_connections_idle') + valueOf(after, 'db_pool_connections_in_use'),
    ).toBeGreaterThan(0);
    expect(after).toMatch(/^db_pool_waiting 0$/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('ships alert rules and a Grafana dashboard that parse and query only series the service exports', async () => {
    // Besides the service's own series: Prometheus's `up` per scrape target, and the blackbox exporter's
    // `probe_success` for /health/ready (docker/prometheus/prometheus.yml).
    const exported = new Set([
      'up',
      'probe_success',
      ...[...(await scrape(metricsPort)).matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name],
      ),
    ]);
    const rules = (
      parseYaml(readFileSync(join(DOCKER, 'prometheus', 'alerts.yml'), 'utf8')) as {
        groups: {
          name: string;
          rules: { alert: string; expr: string; for: string; annotations: object }[];
        }[];
      }
    ).groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'RestaurantOrdersTargetDown',
      'RestaurantOrdersNotReady',
      'RestaurantOrdersHighErrorRatio',
      'RestaurantOrdersSlowRequests',
      'RestaurantOrdersWebhookLag',
      'RestaurantOrdersWebhookDeliveriesGivenUp',
      'RestaurantOrdersDatabasePoolWaiting',
      'RestaurantOrdersHeapNearLimit',
      'RestaurantOrdersEventLoopLag',
    ]);
    const dashboard = JSON.parse(readFileSync(join(DOCKER, 'grafana', 'restaurant-orders.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    expect(dashboard.panels.map((panel) => panel.title)).toEqual(
      expect.arrayContaining([
        'Requests per second by route',
        'Latency p50 / p99',
        'Errors',
        'Database pool',
        'Webhook lag',
      ]),
    );
    const expressions = [
      ...rules.map((rule) => rule.expr),
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
    ];
    for (const expr of expressions) {
      const metrics = selectedMetrics(expr);
      expect(metrics.length).toBeGreaterThan(0);
      for (const metric of metrics)
        expect({ expr, metric, exported: exported.has(metric) }).toMatchObject({ exported: true });
    }
  });

  it('refuses to start with one clear line when its metrics port is taken', async () => {
    const result = await startServiceExpectingFailure({
      DATABASE_URL: service.databaseUrl,
      METRICS_PORT: String(metricsPort),
      PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `METRICS_PORT ${metricsPort} is already in use (another instance on this machine?): set METRICS_PORT to a free port, or to 0 to turn metrics off.`,
    );
  });
});
