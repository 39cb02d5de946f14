import { join } from 'node:path';
import { type ProcessResult, runNode } from './run-node';
import { TEST_DEVICE_CREDENTIALS_KEY } from './test-database';

const CLI = join(__dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface CliResult extends ProcessResult {
  /** stdout parsed, when it is the one JSON object the CLI prints on success. */
  json: Record<string, unknown> | undefined;
}

/** Runs `npm run cli -- <args>` (the compiled CLI) against a database, with the test credentials key. */
export async function runCli(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const result = await runNode(CLI, args, {
    DATABASE_URL: databaseUrl,
    DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
    ...env,
  });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { ...result, json };
}
/** An admin token issued with the CLI: the one bootstrap step every admin-API spec starts from. */
export async function issueAdminToken(databaseUrl: string): Promise<string> {
  const result = await runCli(databaseUrl, ['tokens:create', '--role', 'admin', '--user-name', 'spec-admin']);
  if (result.code !== 0 || typeof result.json?.token !== 'string')
    throw new Error(`tokens:create failed: ${result.stderr}`);
  return result.json.token;
}
