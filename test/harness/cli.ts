import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const CLI = join(__dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is the one JSON object the CLI prints on success. */
  json: Record<string, unknown> | undefined;
}

/** Runs `npm run cli -- <args>` (the compiled CLI) against a database. */
export async function runCli(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** An admin token issued with the CLI: the one bootstrap step every admin-API spec starts from. */
export async function issueAdminToken(databaseUrl: string): Promise<string> {
  const result = await runCli(databaseUrl, ['tokens:create', '--role', 'admin', '--user-name', 'spec-admin']);
  if (result.code !== 0 || typeof result.json?.token !== 'string')
    throw new Error(`tokens:create failed: ${result.stderr}`);
  return result.json.token;
}
