import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';

describe('the service foundation (CONTRACT §2, §8)', () => {
  let service: TestApp;
  let admin: Promise<string> | undefined;
  /** The body is read only once the caller is known (CONTRACT §2), so body refusals need a valid token. */
  const adminToken = () => (admin ??= issueAdminToken(service));

  beforeAll(async () => {
    service = await startApp();
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

describe('an unexpected failure', () => {
  it('answers 500 {"message": "Server error."} with no SQL or stack, and logs the detail under the request id', async () => {
    const service = await startApp();
    try {
      const token = await issueAdminToken(service);
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
