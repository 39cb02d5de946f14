import Redis from 'ioredis';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';

const FORBIDDEN = { message: 'Forbidden.' };
const UNAUTHENTICATED = { message: 'Unauthenticated.' };

let counter = 0;
const unique = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;
const bearer = (token: string) => `Bearer ${token}`;
const tooMany = (service: TestApp) => ({
  message: `Too many requests. See the API documentation at ${service.url}/api/docs.`,
});

interface Issued {
  id: number;
  token: string;
}

/** Creates a company and a partner token for it with `admin`: two requests on the admin budget. */
async function issuePartner(service: TestApp, admin: string): Promise<Issued> {
  const company = await request(service.url)
    .post('/api/v2/admin/companies')
    .set('Authorization', bearer(admin))
    .send({ name: unique('Limited Bistro'), site: 'SK' })
    .expect(201);
  const token = await request(service.url)
    .post('/api/v2/admin/tokens')
    .set('Authorization', bearer(admin))
    .send({ role: 'partner', user_name: unique('partner'), company_id: company.body.id })
    .expect(201);
  return token.body as Issued;
}

async function issueAdmin(service: TestApp, admin: string): Promise<Issued> {
  const token = await request(service.url)
    .post('/api/v2/admin/tokens')
    .set('Authorization', bearer(admin))
    .send({ role: 'admin', user_name: unique('admin') })
    .expect(201);
  return token.body as Issued;
}

describe('rate limiting per token (RATE_LIMIT_PER_MINUTE=5)', () => {
  let service: TestApp;
  let admin: string;

  beforeAll(async () => {
    service = await startApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    admin = await issueAdminToken(service);
  });

  afterAll(async () => {
    await service.stop();
  });

  it('counts a partner down from 5 and answers the 6th request with 429, Retry-After and the docs link', async () => {
    const partner = await issuePartner(service, admin);
    for (let n = 1; n <= 5; n += 1) {
      const response = await request(service.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(partner.token));
      expect({ n, status: response.status, body: response.body }).toEqual({
        n,
        status: 403,
        body: FORBIDDEN,
      });
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(5 - n));
      expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(response.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const refused = await request(service.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', bearer(partner.token));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany(service));
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-limit']).toBe('5');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
  });

  it('leaves another token unaffected while one is refused', async () => {
    const spent = await issuePartner(service, admin);
    const fresh = await issuePartner(service, admin);
    for (let n = 1; n <= 5; n += 1)
      await request(service.url)
        .get('/api/v2/admin/tokens')
        .set('Authorization', bearer(spent.token))
        .expect(403);
    await request(service.url)
      .get('/api/v2/admin/tokens')
      .set('Authorization', bearer(spent.token))
      .expect(429);
    const other = await request(service.url)
      .get('/api/v2/admin/tokens')
      .set('Authorization', bearer(fresh.token));
    expect(other.status).toBe(403);
    expect(other.body).toEqual(FORBIDDEN);
    expect(other.headers['x-ratelimit-remaining']).toBe('4');
    await request(service.url)
      .get('/api/v2/admin/tokens')
      .set('Authorization', bearer(spent.token))
      .expect(429);
  });

  it('draws one budget across all routes', async () => {
    const partner = await issuePartner(service, admin);
    const paths = [
      '/api/v2/admin/companies',
      '/api/v2/admin/tokens',
      '/api/v2/admin/audit-events',
      '/api/v2/admin/companies',
      '/api/v2/admin/tokens',
    ];
    const remaining: string[] = [];
    for (const path of paths) {
      const response = await request(service.url).get(path).set('Authorization', bearer(partner.token));
      expect(response.status).toBe(403);
      remaining.push(response.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await request(service.url)
      .post('/api/v2/admin/companies')
      .set('Authorization', bearer(partner.token))
      .send({ name: unique('Over budget'), site: 'SK' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany(service));
  });

  it('gives admin tokens their own budget (600 by default)', async () => {
    const operator = await issueAdmin(service, admin);
    for (let n = 1; n <= 7; n += 1) {
      const response = await request(service.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(operator.token));
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('600');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(600 - n));
    }
  });

  it('never limits the health routes and sends them no rate-limit headers', async () => {
    for (let n = 1; n <= 8; n += 1) {
      for (const path of ['/health/live', '/health/ready']) {
        const response = await request(service.url).get(path);
        expect(response.status).toBe(200);
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
        expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
        expect(response.headers['x-ratelimit-reset']).toBeUndefined();
      }
    }
  });
});

describe('rate limiting requests without a valid token (per client IP)', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });

  afterAll(async () => {
    await service.stop();
  });

  it('answers the 6th anonymous request with 429 instead of 401, and still serves health', async () => {
    const headers: (string | undefined)[] = [
      undefined,
      'Basic xyz',
      `Bearer roa_${'B'.repeat(43)}`,
      'Token abc',
      undefined,
    ];
    for (const [index, header] of headers.entries()) {
      const call = request(service.url).get('/api/v2/admin/companies');
      if (header) call.set('Authorization', header);
      const response = await call;
      expect({ index, status: response.status, body: response.body }).toEqual({
        index,
        status: 401,
        body: UNAUTHENTICATED,
      });
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(4 - index));
    }
    const refused = await request(service.url).get('/api/v2/admin/tokens');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(tooMany(service));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const unknown = await request(service.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', `Bearer roa_${'C'.repeat(43)}`);
    expect(unknown.status).toBe(429);
    const health = await request(service.url).get('/health/live');
    expect(health.status).toBe(200);
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('admin and partner budgets side by side (RATE_LIMIT_PER_MINUTE=3, ADMIN_RATE_LIMIT_PER_MINUTE=8)', () => {
  let service: TestApp;
  let admin: string;

  beforeAll(async () => {
    service = await startApp({ env: { RATE_LIMIT_PER_MINUTE: '3', ADMIN_RATE_LIMIT_PER_MINUTE: '8' } });
    admin = await issueAdminToken(service);
  });

  afterAll(async () => {
    await service.stop();
  });

  it('lets an admin token make 8 requests and a partner token 3, 403s included', async () => {
    const partner = await issuePartner(service, admin);
    const operator = await issueAdmin(service, admin);
    const adminStatuses: number[] = [];
    for (let n = 1; n <= 9; n += 1) {
      const response = await request(service.url)
        .get(n % 2 ? '/api/v2/admin/companies' : '/api/v2/admin/tokens')
        .set('Authorization', bearer(operator.token));
      adminStatuses.push(response.status);
      expect(response.headers['x-ratelimit-limit']).toBe('8');
    }
    expect(adminStatuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const partnerStatuses: number[] = [];
    for (let n = 1; n <= 4; n += 1) {
      const response = await request(service.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(partner.token));
      partnerStatuses.push(response.status);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
    }
    expect(partnerStatuses).toEqual([403, 403, 403, 429]);
  });
});

const withRedis = process.env.REDIS_URL ? describe : describe.skip;

withRedis('two instances sharing one Redis (RATE_LIMIT_PER_MINUTE=6)', () => {
  let first: TestApp;
  let second: TestApp;
  let redis: Redis;
  let admin: string;
  const keysOf = (id: number) => [
    `{roa:rate:token:${id}:default}:hits`,
    `{roa:rate:token:${id}:default}:blocked`,
  ];

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.REDIS_URL!, RATE_LIMIT_PER_MINUTE: '6' };
    first = await startApp({ env });
    second = await startApp({ env: { ...env, DATABASE_URL: first.databaseUrl } });
    redis = new Redis(process.env.REDIS_URL!);
    admin = await issueAdminToken(first);
  });

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    redis?.disconnect();
  });

  it('draws one budget for a token across both instances: the 7th request overall gets 429', async () => {
    // Token ids restart at 1 in every fresh database and Redis keys outlive a run: skip ahead, then clear ours.
    for (let n = 0; n < 3; n += 1) await issuePartner(first, admin);
    const partner = await issuePartner(second, admin);
    await redis.del(...keysOf(partner.id));
    try {
      const results: { instance: string; status: number; remaining: string }[] = [];
      for (let n = 1; n <= 7; n += 1) {
        const service = n % 2 ? first : second;
        const response = await request(service.url)
          .get('/api/v2/admin/companies')
          .set('Authorization', bearer(partner.token));
        results.push({
          instance: n % 2 ? 'first' : 'second',
          status: response.status,
          remaining: response.headers['x-ratelimit-remaining'],
        });
      }
      expect(results).toEqual([
        { instance: 'first', status: 403, remaining: '5' },
        { instance: 'second', status: 403, remaining: '4' },
        { instance: 'first', status: 403, remaining: '3' },
        { instance: 'second', status: 403, remaining: '2' },
        { instance: 'first', status: 403, remaining: '1' },
        { instance: 'second', status: 403, remaining: '0' },
        { instance: 'first', status: 429, remaining: '0' },
      ]);
      const refused = await request(second.url)
        .get('/api/v2/admin/tokens')
        .set('Authorization', bearer(partner.token));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(tooMany(second));
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await redis.exists(keysOf(partner.id)[0])).toBe(1);
    } finally {
      await redis.del(...keysOf(partner.id));
    }
  });
});
