import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { startService, startServiceExpectingFailure } from '../harness/service';
import { createTestDatabase } from '../harness/test-database';

/** The foundation's rules of the process itself: the environment refused at start, SIGTERM, migrations at start. */
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
