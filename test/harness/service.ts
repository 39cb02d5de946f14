import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Pool } from 'pg';
import request from 'supertest';
import { type ProcessResult, runNode } from './run-node';
import { createTestDatabase, directUrlOf, TEST_DEVICE_CREDENTIALS_KEY } from './test-database';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
/** Generous: a first start runs initdb, migrations and the demo seed, on machines shared with other work. */
const START_TIMEOUT_MS = 90_000;

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface RunningService {
  url: string;
  /** The service's DATABASE_URL (undefined with the embedded default). */
  databaseUrl: string | undefined;
  /** A pool on the service's database, for asserting what a request wrote (not with the embedded default). */
  db: Pool;
  process: ChildProcess;
  /** Everything the service wrote to stdout and stderr, as received. */
  output(): string;
  /** stdout, parsed: the service logs one JSON object per line. */
  logs(): LogLine[];
  /** Sends the signal (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /**
   * Extra environment; METRICS_PORT defaults to 0 (off: many services run at once, and each would take 9464;
   * a spec that scrapes metrics passes a free port), DATABASE_URL defaults to a fresh clone of the migrated template and
   * DEVICE_CREDENTIALS_KEY to the test key (not with the embedded default, which keeps its own in ./.data).
   */
  env?: Record<string, string>;
  cwd?: string;
  /** Run the dist/main.js of another checkout of the project (built, with its node_modules) instead of ours. */
  checkout?: string;
  /** Start with no DATABASE_URL at all: the service starts its embedded PostgreSQL under `cwd`. */
  embeddedDatabase?: boolean;
  /** Start with `npm run <script>` in `cwd` (`start:dev`, say) instead of `node dist/main.js`; stop signals its process group. */
  npmScript?: string;
}

/** Runs `node dist/main.js` and resolves once it logs that it listens, with the port it chose. */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const databaseUrl = options.embeddedDatabase
    ? undefined
    : (options.env?.DATABASE_URL ?? (await createTestDatabase()));
  const directUrl = databaseUrl === undefined ? undefined : directUrlOf(databaseUrl);
  const main = options.checkout ? join(options.checkout, 'dist', 'main.js') : MAIN;
  const [command, args] = options.npmScript
    ? ['npm', ['run', options.npmScript]]
    : [process.execPath, [main]];
  const child = spawn(command, args, {
    cwd: options.cwd,
    detached: Boolean(options.npmScript),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...(options.embeddedDatabase ? {} : { DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY }),
      ...(directUrl ? { DATABASE_DIRECT_URL: directUrl } : {}),
      ...options.env,
      DATABASE_URL: databaseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const send = (signal: NodeJS.Signals) =>
    options.npmScript ? process.kill(-child.pid!, signal) : child.kill(signal);
  let stdout = '';
  let all = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    all += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (all += chunk.toString()));
  const parseLogs = (): LogLine[] =>
    stdout
      .split('\n')
      .slice(0, -1) // the last piece is a line still being written
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      send('SIGTERM'); // no service left running behind a failed test
      reject(new Error(`The service did not start:\n${all}`));
    }, START_TIMEOUT_MS);
    const check = () => {
      const listening = parseLogs().find((line) => line.event === 'listening');
      if (listening) {
        clearTimeout(timer);
        resolve(listening.port as number);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The service exited with ${code} before listening:\n${all}`));
    });
  });
  child.removeAllListeners('exit');
  const db = new Pool({
    connectionString: databaseUrl ?? 'postgres://embedded-default-has-no-test-pool',
    max: 3,
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    url: `http://127.0.0.1:${port}`,
    databaseUrl,
    db,
    process: child,
    output: () => all,
    logs: parseLogs,
    stop: async (signal = 'SIGTERM') => {
      await db.end();
      if (child.exitCode === null && child.signalCode === null) send(signal);
      return exited;
    },
  };
}

/** Runs the service (in `cwd`) expecting it to refuse to start; resolves with its exit code and what it printed. */
export function startServiceExpectingFailure(
  env: Record<string, string>,
  cwd?: string,
): Promise<ProcessResult> {
  const directUrl = env.DATABASE_URL === undefined ? undefined : directUrlOf(env.DATABASE_URL);
  return runNode(
    MAIN,
    [],
    {
      DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
      METRICS_PORT: '0',
      ...(directUrl ? { DATABASE_DIRECT_URL: directUrl } : {}),
      ...env,
    },
    cwd,
  );
}

/** Requests to a running service's API (supertest): `api(service).get(path).set(as(token))`. */
export const api = (service: RunningService) => request(service.url);

/** The Authorization header that presents a bearer token. */
export const as = (token: string) => ({ Authorization: `Bearer ${token}` });
