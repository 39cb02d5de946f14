import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
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
  /**
   * Sends the signal (SIGTERM by default; an npm script's process group gets SIGINT, as from Ctrl-C at a terminal)
   * and resolves with the exit code, for an npm script once every process of its group has ended.
   */
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

/** How long an npm script's processes (the Nest CLI's watcher, the service, its PostgreSQL) may take to end. */
const GROUP_STOP_TIMEOUT_MS = 30_000;

/** The processes of group `pgid` still running (zombies aside: nothing here reaps orphans). */
function liveMembers(pgid: number): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // pid (comm) state ppid pgrp …: comm may hold spaces, so read after its closing parenthesis.
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(pgrp) === pgid && state !== 'Z' ? [stat.slice(0, stat.lastIndexOf(')') + 1)] : [];
      } catch {
        return [];
      }
    });
}

/**
 * Resolves once no process of group `pgid` runs; after GROUP_STOP_TIMEOUT_MS kills what is left and fails, so
 * no process outlives its spec (a PostgreSQL left running keeps its data folder from the next start).
 */
async function groupEnded(pgid: number, script: string): Promise<void> {
  for (const until = Date.now() + GROUP_STOP_TIMEOUT_MS; Date.now() < until;) {
    if (liveMembers(pgid).length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = liveMembers(pgid);
  process.kill(-pgid, 'SIGKILL');
  throw new Error(
    `npm run ${script} exited, but these processes of it still ran ${GROUP_STOP_TIMEOUT_MS} ms later: ${left.join(', ')}`,
  );
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
    stop: async (signal = options.npmScript ? 'SIGINT' : 'SIGTERM') => {
      await db.end();
      if (child.exitCode === null && child.signalCode === null) send(signal);
      const code = await exited;
      if (options.npmScript) await groupEnded(child.pid!, options.npmScript);
      return code;
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

/** Requests to a running service's API, spawned or in process (supertest): `api(service).get(path).set(as(token))`. */
export const api = (service: { url: string }) => request(service.url);

/** The Authorization header that presents a bearer token. */
export const as = (token: string) => ({ Authorization: `Bearer ${token}` });
