import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { findFreePort } from '../../src/platform/database/free-port';
import { runCli, runMigrations } from '../harness/cli';
import type { ProcessResult } from '../harness/run-node';
import { startService, startServiceExpectingFailure } from '../harness/service';
import { createTestDatabase, TEST_SERVER_URL_VAR } from '../harness/test-database';

/**
 * Start-up (CONTRACT §8): a bad or unusable setting stops the start with one line naming the variable and the
 * cause (JSON in production), never a stack, never the value of a secret.
 */
const SERVER_URL = new URL(process.env[TEST_SERVER_URL_VAR]!);
/** The test server's password, or one it ignores (trust authentication): either must never be printed. */
const PASSWORD = SERVER_URL.password || 'Pa55wordN0tToBeSeen';

/** The URL of the test server, with its password, on another database (or port). */
function databaseUrl(database: string, port = SERVER_URL.port || '5432'): string {
  const url = new URL(SERVER_URL.toString());
  url.password = PASSWORD;
  url.port = port;
  url.pathname = `/${database}`;
  return url.toString();
}

/** Everything the process printed, stdout and stderr: what a log collector receives. */
const printed = ({ stdout, stderr }: ProcessResult) => `${stdout}${stderr}`;

/** Exactly one line, on stderr, without a stack. */
function expectOneLine(result: ProcessResult): string {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toMatch(/\bat .*\.js:\d+/);
  expect(lines[0]).not.toContain('\u001b[');
  return lines[0];
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(port, () => resolve(server));
  });
}

describe('a setting that parses but cannot be used stops the start with one line', () => {
  it.each([
    [
      'a closed port',
      () => databaseUrl('postgres', '1'),
      /DATABASE_URL: nothing accepts connections at 127\.0\.0\.1:1/,
    ],
    [
      'an unknown database',
      () => databaseUrl('no_such_database'),
      /DATABASE_URL: database "no_such_database" does not exist/,
    ],
  ])(
    'DATABASE_URL with %s: names it and the cause, in plain text and in production as JSON',
    async (_, url, cause) => {
      const plain = await startServiceExpectingFailure({ DATABASE_URL: url() });
      expect(expectOneLine(plain)).toMatch(cause);
      expect(printed(plain)).not.toContain(PASSWORD);

      const production = await startServiceExpectingFailure({ DATABASE_URL: url(), NODE_ENV: 'production' });
      const line = JSON.parse(expectOneLine(production)) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 60, event: 'startup_failed', variable: 'DATABASE_URL' });
      expect(line.msg).toMatch(cause);
      expect(printed(production)).not.toContain(PASSWORD);
    },
  );

  it('DATABASE_DIRECT_URL with a closed port: names it and the cause', async () => {
    const result = await startServiceExpectingFailure({
      DATABASE_URL: databaseUrl('postgres'),
      DATABASE_DIRECT_URL: databaseUrl('postgres', '1'),
    });
    expect(expectOneLine(result)).toMatch(
      /^Cannot use the database of DATABASE_DIRECT_URL: nothing accepts connections at 127\.0\.0\.1:1/,
    );
    expect(printed(result)).not.toContain(PASSWORD);
  });

  it('DATABASE_DIRECT_URL without DATABASE_URL: names it', async () => {
    const result = await startServiceExpectingFailure({ DATABASE_DIRECT_URL: databaseUrl('postgres') });
    expect(expectOneLine(result)).toMatch(
      /^Invalid environment variable DATABASE_DIRECT_URL: needs DATABASE_URL \(the pooler it bypasses\)/,
    );
  });

  it('DATABASE_DIRECT_URL set (DATABASE_URL a pooler) while DATABASE_URL has no timeouts in force: names DATABASE_URL, in production as JSON', async () => {
    // The test server's role and databases set no statement_timeout: only the startup parameters did, and
    // with DATABASE_DIRECT_URL set the service sends none, as through a pooler.
    const production = await startServiceExpectingFailure({
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl('postgres'),
      DATABASE_DIRECT_URL: databaseUrl('postgres'),
    });
    const line = JSON.parse(expectOneLine(production)) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 60, event: 'startup_failed', variable: 'DATABASE_URL' });
    expect(line.msg).toMatch(
      /^Timeouts are not in force through DATABASE_URL \(a pooler: DATABASE_DIRECT_URL is set\): statement_timeout is 0 \(none\), idle_in_transaction_session_timeout is 0 \(none\); .*ALTER ROLE "[^"]+" SET statement_timeout = 10000/,
    );
    expect(printed(production)).not.toContain(PASSWORD);
  });

  it('REDIS_URL with a closed port: names it and the cause, never its password', async () => {
    const result = await startServiceExpectingFailure({
      DATABASE_URL: await createTestDatabase(),
      REDIS_URL: `redis://default:${PASSWORD}@127.0.0.1:1`,
    });
    expect(expectOneLine(result)).toMatch(
      /^Cannot use the Redis of REDIS_URL: connect ECONNREFUSED 127\.0\.0\.1:1\.$/,
    );
    expect(printed(result)).not.toContain(PASSWORD);
  });

  it('the CLI too: one line on stderr naming DATABASE_URL', async () => {
    const result = await runCli(databaseUrl('postgres', '1'), [
      'companies:create',
      '--name',
      'X',
      '--site',
      'SK',
    ]);
    expect(expectOneLine(result)).toMatch(/DATABASE_URL: nothing accepts connections at 127\.0\.0\.1:1/);
    expect(printed(result)).not.toContain(PASSWORD);
  });

  it('a PORT another process listens on: names it, in plain text and in production as JSON', async () => {
    const port = await findFreePort();
    const taken = await listen(port);
    try {
      const env = { DATABASE_URL: await createTestDatabase(), PORT: String(port) };
      const plain = await startServiceExpectingFailure(env);
      expect(expectOneLine(plain)).toMatch(new RegExp(`^PORT ${port} is already in use`));
      const production = await startServiceExpectingFailure({ ...env, NODE_ENV: 'production' });
      expect(JSON.parse(expectOneLine(production))).toMatchObject({
        event: 'startup_failed',
        variable: 'PORT',
      });
    } finally {
      taken.close();
    }
  });
});

describe('no secret of the configuration is ever printed', () => {
  const key = 'a1b2c3d4e5f6a7b8c9d0'.repeat(3).concat('e1f'); // 63 hex digits: one short

  it.each([
    ['DEVICE_CREDENTIALS_KEY', key, [key, key.slice(0, 16), key.slice(-16)]],
    [
      'DATABASE_URL',
      `mysql://admin:${PASSWORD}@db.example.com/orders?password=Qu3ryS3cret`,
      [PASSWORD, 'Qu3ryS3cret'],
    ],
    ['DATABASE_URL', `postgres://admin:${PASSWORD}@db.example.com:notaport/orders`, [PASSWORD]],
    ['REDIS_URL', `http://default:${PASSWORD}@cache.example.com:6379`, [PASSWORD]],
  ])('a malformed %s is named, and its secret part is not shown', async (name, value, secrets) => {
    const result = await startServiceExpectingFailure({
      DATABASE_URL: databaseUrl('postgres'),
      [name]: value,
    });
    expect(expectOneLine(result)).toMatch(new RegExp(`^Invalid environment variable ${name}: `));
    for (const secret of secrets) expect(printed(result)).not.toContain(secret);
  });
});

describe('NODE_ENV=production never uses the embedded development database', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-production-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('refuses to start without DATABASE_URL, with one JSON line, and creates no ./.data', async () => {
    const result = await startServiceExpectingFailure({ NODE_ENV: 'production' }, workDir);
    const line = JSON.parse(expectOneLine(result)) as Record<string, unknown>;
    expect(line).toMatchObject({ event: 'startup_failed', variable: 'DATABASE_URL' });
    expect(line.msg).toMatch(/DATABASE_URL: is required when NODE_ENV=production/);
    expect(existsSync(join(workDir, '.data'))).toBe(false);
  });
});

describe('readiness means usable', () => {
  it('is 503 while migrations are pending (MIGRATIONS_RUN=false), and 200 once they are applied', async () => {
    const url = await createTestDatabase({ empty: true });
    const service = await startService({ env: { DATABASE_URL: url, MIGRATIONS_RUN: 'false' } });
    try {
      await request(service.url).get('/health/ready').expect(503, { message: 'Service unavailable.' });
      expect((await runMigrations(url)).code).toBe(0);
      await request(service.url).get('/health/ready').expect(200);
    } finally {
      await service.stop();
    }
  });
});
