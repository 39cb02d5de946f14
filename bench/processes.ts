import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const START_TIMEOUT_MS = 60_000;
/** USER_HZ, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A server under test, run as its own process so that its memory and CPU are its own. */
export interface ServerProcess {
  name: string;
  baseUrl: string;
  pid: number;
  /** Forgets the peak resident set size so far (Linux clear_refs 5), so the next reading is one scenario's. */
  resetPeakRss(): void;
  /** Peak resident set size since start or the last reset, in MB (VmHWM). */
  peakRssMb(): number;
  /** CPU time the process has used so far (user + system), in ms: what a request costs, whatever the load. */
  cpuTimeMs(): number;
  stop(): Promise<void>;
}

async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The server did not answer ${url} within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

/**
 * Starts `args` with node on `port` and waits until `readyPath` answers 2xx. Its stdout (the request log)
 * is read and dropped, so logging costs what it costs in production; stderr is kept for error reports. `cwd` is
 * the checkout it runs in (this one unless another build is compared).
 */
export async function startServer(
  name: string,
  args: string[],
  port: number,
  env: Record<string, string>,
  readyPath: string,
  cwd = ROOT,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(baseUrl + readyPath, child, () => errors);
  // A server run through tsx's CLI runs in a child of the process spawned here: measure that one.
  const [runner] = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ');
  const pid = runner ? Number(runner) : child.pid!;
  return {
    name,
    baseUrl,
    pid,
    resetPeakRss: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    peakRssMb: () => {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Math.round(Number(kb) / 1024);
    },
    cpuTimeMs: () => {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime and stime in clock ticks.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * The environment the bench runs the compiled app with: production mode, request logging on, the rate limit
 * on but high enough never to refuse, the bench database and its credentials key.
 */
export function appEnvironment(databaseUrl: string, credentialsKey: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DEVICE_CREDENTIALS_KEY: credentialsKey,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'info',
  };
}
