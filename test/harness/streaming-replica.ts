import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PG_BIN } from './topology';

const run = promisify(execFile);

/** A PostgreSQL 15 primary and a streaming replica of it (pg_basebackup -R), each on a port of its own. */
export interface StreamingReplica {
  /** The database `orders` on the primary, and on the replica. */
  primaryUrl: string;
  replicaUrl: string;
  stop(): Promise<void>;
}

/** What starting one needs and this machine lacks (the server binaries of PostgreSQL 15: postgresql-15). */
export function missingForStreamingReplica(): string[] {
  return ['initdb', 'pg_ctl', 'pg_basebackup']
    .map((tool) => join(PG_BIN, tool))
    .filter((path) => !existsSync(path));
}

/**
 * Starts both in a folder of their own under the system's temporary folder, trusting local connections, with
 * fsync off (a test's data). As root the servers run as the postgres user, as initdb requires. Ports below
 * 32768, apart from Linux's ephemeral range (CONTRIBUTING.md).
 */
export async function startStreamingReplica(ports: {
  primary: number;
  replica: number;
}): Promise<StreamingReplica> {
  const dir = mkdtempSync(join(tmpdir(), 'roa-streaming-replica-'));
  const root = process.getuid?.() === 0;
  const asPostgres = (tool: string, args: string[]) =>
    root
      ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args])
      : run(join(PG_BIN, tool), args);
  if (root) await run('chown', ['postgres', dir]);
  const primary = join(dir, 'primary');
  const replica = join(dir, 'replica');
  const server = (port: number) =>
    `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\n`;
  await asPostgres('initdb', ['-D', primary, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  appendFileSync(primary + '/postgresql.conf', server(ports.primary));
  appendFileSync(primary + '/pg_hba.conf', 'host replication all 127.0.0.1/32 trust\n');
  await asPostgres('pg_ctl', ['-D', primary, '-l', join(dir, 'primary.log'), '-w', 'start']);
  const stop = async () => {
    for (const data of [replica, primary])
      if (existsSync(join(data, 'postmaster.pid')))
        await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await asPostgres('createdb', [
      '-h',
      '127.0.0.1',
      '-p',
      String(ports.primary),
      '-U',
      'postgres',
      'orders',
    ]);
    await asPostgres('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(ports.primary), '-U', 'postgres'],
      ...['-D', replica, '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    // The replica's own port, after the primary's settings it copied.
    appendFileSync(replica + '/postgresql.conf', server(ports.replica));
    await asPostgres('pg_ctl', ['-D', replica, '-l', join(dir, 'replica.log'), '-w', 'start']);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/orders`;
  return { primaryUrl: url(ports.primary), replicaUrl: url(ports.replica), stop };
}
