import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { startService, startServiceExpectingFailure, type RunningService } from './harness/service';
import { issueAdminToken } from './harness/cli';
import { createTestDatabase } from './harness/test-database';

describe('the service foundation (CONTRACT §2, §8)', () => {
  let service: RunningService;
  let admin: Promise<string> | undefined;
  /** The body is read only once the caller is known (CONTRACT §2), so body refusals need a valid token. */
  const adminToken = () => (admin ??= issueAdminToken(service.databaseUrl!));

  beforeAll(async () => {
    service = await startService();
  });

  afterAll(async () => {
    await service.stop();
  });

  it('answers liveness and readiness without a token', async () => {
    await request(service.url)
      .get('/health/live')
      .expect(200, { status: 'ok', info: {}, error: {}, details: {} });
    const ready = await request(service.url).get('/health/ready').expect(200);
    expect(ready.body.details.database.status).toBe('up');
  });

  it('answers an unknown route with 404 {"message": "Not found."}', async () => {
    await request(service.url).get('/api/v2/nothing-here').expect(404, { message: 'Not found.' });
    await request(service.url).post('/nope').send({}).expect(404, { message: 'Not found.' });
  });

  it('answers malformed JSON with the contract body, whatever the route', async () => {
    const response = await request(service.url)
      .post('/api/v2/admin/companies')
      .set('Authorization', `Bearer ${await adminToken()}`)
      .set('Content-Type', 'application/json')
      .send('{"name": "x",');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'Bad request.', errors: { body: ['Malformed JSON.'] } });
  });

  it('refuses a body over 1 MiB with 413 and accepts one just under', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    const refused = await request(service.url)
      .post('/api/v2/admin/companies')
      .set('Authorization', `Bearer ${await adminToken()}`)
      .set('Content-Type', 'application/json')
      .send(big);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({ message: 'Request body too large: the limit is 1 MiB.' });
    const small = JSON.stringify({ name: 'x'.repeat(1000 * 1000) });
    const accepted = await request(service.url)
      .post('/api/v2/admin/companies')
      .set('Authorization', `Bearer ${await adminToken()}`)
      .set('Content-Type', 'application/json')
      .send(small);
    expect(accepted.status).toBe(400);
    expect(Object.keys(accepted.body.errors)).toContain('name');
  });

  it('answers a malformed percent-encoding with 400, not 500', async () => {
    await request(service.url).get('/api/v2/%E0%A4%A').expect(400, { message: 'Bad request.' });
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const echoed = await request(service.url).get('/health/live').set('X-Request-Id', 'partner-req-42');
    expect(echoed.headers['x-request-id']).toBe('partner-req-42');
    const generated = await request(service.url).get('/nope');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const replaced = await request(service.url)
      .get('/health/live')
      .set('X-Request-Id', 'no spaces <allowed>');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one JSON line per request with method, route, status, duration and request id, and no secret', async () => {
    const secret = 'roa_' + 'S'.repeat(43);
    await request(service.url)
      .get('/health/live')
      .set('X-Request-Id', 'log-check-1')
      .set('Authorization', `Bearer ${secret}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = service.logs().filter((line) => line.requestId === 'log-check-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      req: { method: 'GET', path: '/health/live' },
      route: '/health/live',
      res: { status: 200 },
    });
    expect(typeof lines[0].durationMs).toBe('number');
    expect(service.output()).not.toContain(secret);
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const document = await request(service.url).get('/api/docs-json').expect(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/health/live', '/health/ready']),
    );
    const ui = await request(service.url).get('/api/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger');
  });

  it('sends no X-Powered-By header', async () => {
    const response = await request(service.url).get('/health/live');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });
});

describe('configuration is validated at start', () => {
  it.each([
    [
      'PORT',
      'eighty',
      /^Invalid environment variable PORT: must be an integer from 0 to 65535 \(got "eighty"\)\.$/,
    ],
    ['APP_TIMEZONE', 'Mars/Olympus', /^Invalid environment variable APP_TIMEZONE: must be an IANA time zone/],
    [
      'DATABASE_URL',
      'mysql://localhost/x',
      /^Invalid environment variable DATABASE_URL: must be a postgres:\/\//,
    ],
    [
      'RATE_LIMIT_PER_MINUTE',
      '0',
      /^Invalid environment variable RATE_LIMIT_PER_MINUTE: must be a positive integer/,
    ],
    [
      'WEBHOOK_ALLOW_PRIVATE',
      'maybe',
      /^Invalid environment variable WEBHOOK_ALLOW_PRIVATE: must be true, false, 1 or 0/,
    ],
    ['LOG_LEVEL', 'loud', /^Invalid environment variable LOG_LEVEL: must be one of/],
    [
      'DEVICE_CREDENTIALS_KEY',
      '',
      /^Invalid environment variable DEVICE_CREDENTIALS_KEY: is required when DATABASE_URL is set: 32 random bytes .* \(not set\)\.$/,
    ],
    [
      'DEVICE_CREDENTIALS_KEY',
      'abc123',
      /^Invalid environment variable DEVICE_CREDENTIALS_KEY: must be 32 random bytes as 64 hex digits/,
    ],
    [
      'CORS_ORIGINS',
      'https://app.example.com,*',
      /^Invalid environment variable CORS_ORIGINS: must be a comma-separated list of origins/,
    ],
  ])('refuses %s=%s with one line naming it, exit code 1', async (name, value, message) => {
    const { code, stdout, stderr } = await startServiceExpectingFailure({
      DATABASE_URL: 'postgres://127.0.0.1:1/unused',
      [name]: value,
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr.trim()).toMatch(message);
  });
});

describe('shutdown on SIGTERM', () => {
  it('finishes a request in flight, then exits 0', async () => {
    const service = await startService();
    const port = Number(new URL(service.url).port);
    const body = JSON.stringify({ name: 'in flight', site: 'SK' });
    const response = new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/api/v2/admin/companies',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (incoming) => {
          incoming.resume();
          resolve(incoming.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.write(body.slice(0, 10));
      setTimeout(() => {
        service.process.kill('SIGTERM');
        setTimeout(() => outgoing.end(body.slice(10)), 300);
      }, 100);
    });
    expect(await response).toBe(401);
    expect(await service.stop()).toBe(0);
    expect(service.logs().some((line) => line.event === 'shutdown')).toBe(true);
  });
});

describe('migrations at start', () => {
  it('are applied once when two instances start together on an empty database', async () => {
    const databaseUrl = await createTestDatabase({ empty: true });
    const [first, second] = await Promise.all([
      startService({ env: { DATABASE_URL: databaseUrl } }),
      startService({ env: { DATABASE_URL: databaseUrl } }),
    ]);
    try {
      const { rows } = await first.db.query<{ name: string; count: string }>(
        'SELECT name, count(*) AS count FROM migrations GROUP BY name',
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.count === '1')).toBe(true);
      await request(second.url).get('/health/ready').expect(200);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('are skipped with MIGRATIONS_RUN=false', async () => {
    const databaseUrl = await createTestDatabase({ empty: true });
    const service = await startService({ env: { DATABASE_URL: databaseUrl, MIGRATIONS_RUN: 'false' } });
    try {
      const { rows } = await service.db.query("SELECT to_regclass('public.migrations') AS table");
      expect(rows[0].table).toBeNull();
    } finally {
      await service.stop();
    }
  });
});

describe('an unexpected failure', () => {
  it('answers 500 {"message": "Server error."} with no SQL or stack, and logs the detail under the request id', async () => {
    const service = await startService();
    try {
      const token = await issueAdminToken(service.databaseUrl!);
      await service.db.query('ALTER TABLE companies RENAME COLUMN name TO broken_name');
      const response = await request(service.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Request-Id', 'broken-1');
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: 'Server error.' });
      expect(response.text).not.toMatch(/column|SELECT|at /);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const logged = service
        .logs()
        .find((line) => line.requestId === 'broken-1' && line.msg === 'Unhandled error');
      expect(JSON.stringify(logged)).toContain('name');
      await service.db.query('ALTER TABLE api_tokens RENAME COLUMN user_name TO broken_user_name');
      const secretParameter = 'Pa55word-never-logged';
      const failedWrite = await request(service.url)
        .post('/api/v2/admin/tokens')
        .set('Authorization', `Bearer ${token}`)
        .send({ role: 'admin', user_name: secretParameter });
      expect(failedWrite.status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(service.output()).not.toContain(secretParameter);
    } finally {
      await service.stop();
    }
  });
});
