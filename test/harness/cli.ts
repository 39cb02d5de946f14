import { join } from 'node:path';
import { type ProcessResult, runNode, runProcess } from './run-node';
import { directUrlOf, TEST_DEVICE_CREDENTIALS_KEY } from './test-database';

const REPOSITORY = join(__dirname, '..', '..');
const CLI = join(REPOSITORY, 'dist', 'cli', 'main.js');
const MIGRATE = join(REPOSITORY, 'dist', 'platform', 'database', 'migrate.js');

export interface CliResult extends ProcessResult {
  /** stdout parsed, when it is the one JSON object the CLI prints on success. */
  json: Record<string, unknown> | undefined;
}

const cliEnvironment = (databaseUrl: string, env: Record<string, string> = {}) => {
  const directUrl = directUrlOf(databaseUrl);
  return {
    DATABASE_URL: databaseUrl,
    DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
    ...(directUrl ? { DATABASE_DIRECT_URL: directUrl } : {}),
    ...env,
  };
};

/** Runs the compiled CLI (what `npm run cli -- <args>` runs) against a database, with the test credentials key. */
export async function runCli(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  return withJson(await runNode(CLI, args, cliEnvironment(databaseUrl, env)));
}

/** Applies the pending migrations as `npm run migration:run` does (`json`: `{applied: [names]}`), with the test key. */
export async function runMigrations(databaseUrl: string): Promise<CliResult> {
  return withJson(await runNode(MIGRATE, ['run'], cliEnvironment(databaseUrl)));
}

/**
 * Runs the CLI through npm as the documents show it (`npm run cli -- <args>`, `npm run -s cli -- <args>`), in
 * this checkout with the user's HOME and no npm settings from the environment: what a shell at the prompt runs.
 */
export async function runCliThroughNpm(databaseUrl: string, npmArgs: string[]): Promise<CliResult> {
  const env = cliEnvironment(databaseUrl, { HOME: process.env.HOME ?? REPOSITORY });
  return withJson(await runProcess('npm', npmArgs, env, REPOSITORY));
}

function withJson(result: ProcessResult): CliResult {
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
