import { readFileSync } from 'node:fs';
import type { Client } from 'pg';

/** USER_HZ, 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time used so far by a process (utime + stime), in ms; undefined once it has gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
  } catch {
    return undefined;
  }
}

/** The postmaster's pid: the parent of the backend `client` is connected to (the server runs on this machine). */
export async function postmasterOf(client: Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Number(readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
}

/**
 * Whether a backend's title (`postgres: [cluster name: ]<user> <database> <host> <state>`) is one of `user`'s
 * on `database`: the service's backends, not the bench's own (it connects as another role).
 */
export const backendOf =
  (user: string, database: string) =>
  (cmdline: string): boolean =>
    new RegExp(`^postgres: (?:\\S+: )?${user} ${database} `).test(cmdline);

/**
 * The CPU the matching backends spend while `work` runs: the postmaster's children whose title `matches`,
 * sampled every 20 ms, so a connection the pool opens or closes meanwhile counts for the time it was seen.
 */
export async function backendCpuMs<T>(
  postmaster: number,
  matches: (cmdline: string) => boolean,
  work: () => Promise<T>,
): Promise<{ cpuMs: number; result: T }> {
  const seen = new Map<number, { first: number; last: number }>();
  const sample = (initial: boolean) => {
    const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(' ');
    for (const pid of children.map(Number).filter(Boolean)) {
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (!matches(cmdline)) continue;
      const cpu = cpuMsOf(pid);
      if (cpu === undefined) continue;
      const known = seen.get(pid);
      if (known) known.last = cpu;
      else seen.set(pid, { first: initial ? cpu : 0, last: cpu });
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 20);
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(timer);
  }
  sample(false);
  return { cpuMs: [...seen.values()].reduce((sum, { first, last }) => sum + last - first, 0), result };
}
