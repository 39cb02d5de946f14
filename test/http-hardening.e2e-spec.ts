import request from 'supertest';
import { startApp, type TestApp } from './harness/app';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

const preflight = (url: string, origin: string) =>
  request(url)
    .options('/api/v2/order')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization,content-type');

describe('security headers (helmet) on every response', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startApp();
  });

  afterAll(async () => {
    await service.stop();
  });

  it.each([
    ['a health check', '/health/live', 200],
    ['an unauthenticated API call', '/api/v2/order', 401],
    ['an unknown API route', '/api/v2/nothing-here', 404],
  ])("sends the API's set on %s: nothing to run, frame or sniff, HTTPS only", async (_what, path, status) => {
    const response = await request(service.url).get(path).expect(status);
    expect(response.headers).toMatchObject({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
    });
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(response.headers['x-powered-by']).toBeUndefined();
    // A document's headers, which a JSON response does not need.
    expect(response.headers['x-dns-prefetch-control']).toBeUndefined();
    expect(response.headers['origin-agent-cluster']).toBeUndefined();
  });

  it.each([['the OpenAPI document', '/api/docs-json', 200]])(
    "sends helmet's document set on %s",
    async (_what, path, status) => {
      const response = await request(service.url).get(path).expect(status);
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-resource-policy': 'same-origin',
        'x-dns-prefetch-control': 'off',
      });
      expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self'");
      expect(response.headers['x-powered-by']).toBeUndefined();
    },
  );

  it('still serves the Swagger UI under its Content-Security-Policy', async () => {
    const ui = await request(service.url).get('/api/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger-ui');
    expect(ui.headers['content-security-policy']).toContain("style-src 'self' 'unsafe-inline'");
  });

  it.each(['/console/', '/api/docs/swagger-ui.css'])(
    'answers an unsatisfiable Range on the static file %s with 416, without a token',
    async (path) => {
      const response = await request(service.url).get(path).set('Range', 'bytes=999999999-').expect(416);
      expect(response.body).toEqual({ message: 'Range not satisfiable.' });
      expect(response.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
      const part = await request(service.url).get(path).set('Range', 'bytes=0-9').expect(206);
      expect(part.headers['content-range']).toMatch(/^bytes 0-9\/\d+$/);
    },
  );

  it('answers a failed If-Match or If-Unmodified-Since on a static file with 412, not 500', async () => {
    for (const [name, value] of [
      ['If-Match', '"not-this-file"'],
      ['If-Unmodified-Since', 'Mon, 01 Jan 1990 00:00:00 GMT'],
    ]) {
      const response = await request(service.url).get('/console/').set(name, value).expect(412);
      expect(response.body).toEqual({ message: 'Precondition failed.' });
    }
  });

  it('allows no cross-origin browser access when CORS_ORIGINS is not set', async () => {
    const simple = await request(service.url).get('/api/v2/order').set('Origin', ALLOWED).expect(401);
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    const check = await preflight(service.url, ALLOWED);
    expect(check.status).toBeLessThan(500);
    expect(check.headers['access-control-allow-origin']).toBeUndefined();
    expect(check.headers['access-control-allow-headers']).toBeUndefined();
  });
});

describe('CORS with CORS_ORIGINS set', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startApp({ env: { CORS_ORIGINS: `${ALLOWED}, https://ops.example.com/` } });
  });

  afterAll(async () => {
    await service.stop();
  });

  it('answers a listed origin’s preflight and lets it read the documented headers', async () => {
    const check = await preflight(service.url, ALLOWED).expect(204);
    expect(check.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(check.headers['access-control-allow-headers']).toBe('authorization,content-type');
    expect(check.headers['access-control-allow-methods']).toContain('POST');
    const simple = await request(service.url)
      .get('/api/v2/order')
      .set('Origin', 'https://ops.example.com')
      .expect(401);
    expect(simple.headers['access-control-allow-origin']).toBe('https://ops.example.com');
    expect(simple.headers['access-control-expose-headers']).toContain('X-Request-Id');
    expect(simple.headers['access-control-expose-headers']).toContain('Retry-After');
  });

  it('gives an origin that is not listed no CORS headers', async () => {
    const check = await preflight(service.url, OTHER);
    expect(check.headers['access-control-allow-origin']).toBeUndefined();
    const simple = await request(service.url).get('/api/v2/order').set('Origin', OTHER).expect(401);
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    expect(simple.headers['x-content-type-options']).toBe('nosniff');
  });
});
