import { join } from 'node:path';
import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import type { LogLine } from './service';
import { createTestDatabase, directUrlOf, TEST_DEVICE_CREDENTIALS_KEY } from './test-database';

declare global {
  /** Node's own require in this worker (test/harness/in-process-environment.ts): loads dist/ outside jest's sandbox. */
  var nativeRequire: NodeJS.Require;
}

const DIST = join(__dirname, '..', '..', 'dist');

/**
 * A module of the compiled service, loaded by Node itself (NestJS 12 is ESM, which jest's sandbox cannot load),
 * typed as its source: `fromDist<typeof import('../../src/tokens/tokens.service')>('tokens/tokens.service')`.
 * Classes taken from here are the ones the app's injector knows (`app.get(TokensService)`).
 */
export function fromDist<T>(path: string): T {
  return globalThis.nativeRequire(join(DIST, `${path}.js`)) as T;
}

export interface AppOptions {
  /** Extra environment, as the service would read it; DATABASE_URL defaults to a fresh clone of the template. */
  env?: Record<string, string>;
}

/** The service built in this process and listening on a port of its own, shaped like a spawned service. */
export interface TestApp {
  url: string;
  databaseUrl: string;
  /** A pool on the app's database, for asserting what a request wrote. */
  db: Pool;
  app: NestExpressApplication;
  /** A provider of the app: a service or repository to call directly (its class from `fromDist`). */
  get<T>(type: Type<T>): T;
  /** Everything the app logged, as written. */
  output(): string;
  /** The log, parsed: one JSON object per line. */
  logs(): LogLine[];
  /** Closes the app (requests in flight finish, pools and sessions end) and the spec's pool. */
  stop(): Promise<void>;
}

/**
 * Builds the app in this process on its own database, as `node dist/main.js` would with the same environment
 * (the same createApp, the same validation of the environment), and listens on 127.0.0.1 on a free port. A spec
 * talks to it over HTTP as before (`api(app)`); no process is spawned.
 */
export async function startApp(options: AppOptions = {}): Promise<TestApp> {
  globalThis.nativeRequire('reflect-metadata');
  const { createApp } = fromDist<typeof import('../../src/app')>('app');
  const { validateEnvironment } = fromDist<typeof import('../../src/platform/config/environment')>(
    'platform/config/environment',
  );
  const databaseUrl = options.env?.DATABASE_URL ?? (await createTestDatabase());
  const directUrl = directUrlOf(databaseUrl);
  const env = validateEnvironment({
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
    ...(directUrl ? { DATABASE_DIRECT_URL: directUrl } : {}),
    ...options.env,
    DATABASE_URL: databaseUrl,
  });
  let output = '';
  const destination = { write: (chunk: string) => void (output += chunk) };
  const app = await createApp(env, databaseUrl, Buffer.from(TEST_DEVICE_CREDENTIALS_KEY, 'hex'), destination);
  await app.listen(0, '127.0.0.1');
  // fetch (the SDK's, the contract hook's) reuses idle connections. With the server in this process, a busy event
  // loop runs the server's 5 s idle timer late, as a request is already being written on that connection, which
  // the client then sees reset: idle connections outlive any pause in a spec (app.close() still closes them).
  app.getHttpServer().keepAliveTimeout = 60_000;
  const address = app.getHttpServer().address();
  if (typeof address !== 'object' || address === null) throw new Error('The app is not listening.');
  const db = new Pool({ connectionString: databaseUrl, max: 3 });
  return {
    url: `http://127.0.0.1:${address.port}`,
    databaseUrl,
    db,
    app,
    get: <T>(type: Type<T>) => (app as INestApplication).get(type),
    output: () => output,
    logs: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LogLine),
    stop: async () => {
      await db.end();
      await app.close();
    },
  };
}

/** A token issued in process, as the CLI's tokens:create issues it (the audit trail names the operator). */
export async function issueToken(
  target: TestApp,
  input: {
    role: 'admin' | 'logistics' | 'partner';
    userName?: string;
    companyId?: number;
    readOnly?: boolean;
  },
): Promise<{ id: number; token: string }> {
  const { TokensService } =
    fromDist<typeof import('../../src/tokens/tokens.service')>('tokens/tokens.service');
  const { cliActor } = fromDist<typeof import('../../src/cli/cli-actor')>('cli/cli-actor');
  const { token, record } = await target.get(TokensService).issue(cliActor(), {
    role: input.role,
    userName: input.userName ?? `spec-${input.role}`,
    companyId: input.companyId ?? null,
    expiresAt: null,
    readOnly: input.readOnly ?? false,
  });
  return { id: record.id, token };
}

/** An admin token: the one bootstrap step every admin-API spec starts from. */
export async function issueAdminToken(target: TestApp): Promise<string> {
  return (await issueToken(target, { role: 'admin', userName: 'spec-admin' })).token;
}

/**
 * Runs `work` (calls of the app's services or repositories) as the app runs a request or a job iteration, and
 * returns the SQL of every statement it ran, in order (BEGIN and COMMIT included), beside its result.
 */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const { runInJobContext } = fromDist<typeof import('../../src/platform/http/request-context')>(
    'platform/http/request-context',
  );
  const context = { id: 'medium-spec', dbQueries: 0, sql: [] as string[] };
  const result = await runInJobContext(context, work);
  return { result, sql: context.sql };
}
