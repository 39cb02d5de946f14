import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'topology.sh');
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * What scripts/topology.sh needs and this machine lacks (PgBouncer, HAProxy, pg_basebackup, and `tools`);
 * logs that `spec` is skipped when something is missing.
 */
export function missingForTopology(spec: string, tools: string[] = []): string[] {
  const onPath = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
  const basebackup = join(PG_BIN, 'pg_basebackup');
  const missing = [
    ...['pgbouncer', 'haproxy', ...tools].filter((tool) => !onPath(tool)),
    ...(existsSync(basebackup) ? [] : [basebackup]),
  ];
  if (missing.length > 0)
    console.log(
      `${spec} skipped: ${missing.join(', ')} missing (apt-get install -y pgbouncer haproxy postgresql-15)`,
    );
  return missing;
}

/**
 * scripts/topology.sh with `settings` (TOPOLOGY_DIR and the spec's own ports: specs may run at once), each
 * command given `timeoutMs`; `readEnv` reads the topology.env it writes (KEY=value lines).
 */
export function topologyScript(
  settings: Record<string, string> & { TOPOLOGY_DIR: string },
  timeoutMs: number,
): { run: (command: 'up' | 'down' | 'status') => Promise<string>; readEnv: () => Record<string, string> } {
  return {
    run: async (command) =>
      (
        await promisify(execFile)('bash', [SCRIPT, command], {
          env: { PATH: process.env.PATH, ...settings },
          timeout: timeoutMs,
        })
      ).stdout,
    readEnv: () =>
      Object.fromEntries(
        readFileSync(join(settings.TOPOLOGY_DIR, 'topology.env'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      ),
  };
}
