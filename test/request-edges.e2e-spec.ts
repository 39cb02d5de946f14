import { connect } from 'node:net';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, type Partner } from './harness/factories';

const LIMIT = 3;
const BODY_TIMEOUT_MS = 8_000;
const UNAUTHENTICATED = '{"message":"Unauthenticated."}';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** How long the status line took after the request's headers were sent. */
  ms: number;
}

/**
 * Sends a request's headers announcing a 1 MiB JSON body and then nothing: the server can only answer before
 * the body's timeout if it answers without reading the body.
 */
function headersWithoutBody(url: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    const started = Date.now();
    let ms = 0;
    const lines = Object.entries({
      Host: 'localhost',
      'Content-Type': 'application/json',
      'Content-Length': String(1024 * 1024),
      ...headers,
    }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n{"city": "`);
    socket.on('data', (chunk: Buffer) => {
      ms ||= Date.now() - started;
      text += chunk.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end === -1 || length === undefined || text.length < end + 4 + Number(length)) return;
      socket.destroy();
      resolve({
        status: Number(text.slice(9, 12)),
        headers: text.slice(0, end),
        body: text.slice(end + 4),
        ms,
      });
    });
    socket.on('error', reject);
    socket.setTimeout(BODY_TIMEOUT_MS + 5_000, () => {
      socket.destroy();
      reject(new Error(`No answer to ${path}: ${text}`));
    });
  });
}

describe('what a request gets before its body is read, and the Host its links are built from', () => {
  let service: TestApp;
  let fixtures: Fixtures;
  let partner: Partner;
  let productId: number;

  beforeAll(async () => {
    service = await startApp({
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        REQUEST_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
        WEBHOOK_DISPATCHER: 'false',
      },
    });
    fixtures = new Fixtures(service.url, await issueAdminToken(service));
    productId = (await fixtures.product()).id;
  });

  beforeEach(async () => {
    partner = await fixtures.partner('SK');
  });

  afterAll(async () => {
    await service.stop();
  });

  it('answers 401 at once, without reading the body, to no token and to an invalid one', async () => {
    const path = '/api/v2/order';
    const callers: Record<string, string>[] = [{}, { Authorization: 'Bearer roa_not-a-token' }];
    for (const headers of callers) {
      const answer = await headersWithoutBody(service.url, path, headers);
      expect([answer.status, answer.body]).toEqual([401, UNAUTHENTICATED]);
      expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS / 2);
    }
  });

  it('answers 429 at once, without reading the body, to a token over its limit', async () => {
    const as = { Authorization: `Bearer ${partner.token}` };
    for (let sent = 0; sent < LIMIT; sent += 1)
      await request(service.url).get('/api/v2/product').set(as).expect(200);
    const answer = await headersWithoutBody(service.url, '/api/v2/order', as);
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toEqual({
      message: 'Too many requests. See the API documentation at http://localhost/api/docs.',
    });
    expect(answer.headers).toMatch(/\r\nRetry-After: \d+\r\n/i);
    expect(answer.ms).toBeLessThan(BODY_TIMEOUT_MS / 2);
  });

  it('still reads the body of a valid caller, and refuses it as before', async () => {
    const call = () =>
      request(service.url).post('/api/v2/order').set('Authorization', `Bearer ${partner.token}`);
    await call()
      .set('Content-Type', 'application/json')
      .send('{"city": ')
      .expect(400, {
        message: 'Bad request.',
        errors: { body: ['Malformed JSON.'] },
      });
    const unsupported = await call().set('Content-Type', 'text/plain').send('{}').expect(415);
    // Refused after the rate limiter, so it says the limit as the OpenAPI document declares.
    expect(unsupported.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    await call().send(orderBody(productId)).expect(201);
  });

  it('builds pagination links from a valid Host, and refuses one that is not a host and port', async () => {
    const list = (host: string) =>
      request(service.url)
        .get('/api/v2/order?per_page=1&state=TEST')
        .set('Authorization', `Bearer ${partner.token}`)
        .set('Host', host);
    const page = await list('api.partner.example:8443').expect(200);
    expect(page.body.links.first).toBe(
      'http://api.partner.example:8443/api/v2/order?per_page=1&state=TEST&page=1',
    );
    expect((await list('[::1]:3000').expect(200)).body.meta.path).toBe('http://[::1]:3000/api/v2/order');
    for (const host of [
      'evil.example/x?',
      'evil.example#',
      'user@evil.example',
      'evil.example:99999',
      '[::1',
    ]) {
      const refused = await list(host);
      expect([host, refused.status, refused.body]).toEqual([
        host,
        400,
        {
          message: 'Bad request.',
          errors: { Host: ['The Host header must be a host name or an IP address, with an optional port.'] },
        },
      ]);
    }
  });
});
