import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/platform/database/embedded-postgres';
import { buildWhenStale } from '../../scripts/build-freshness';
import {
  adminQuery,
  TEST_DEVICE_CREDENTIALS_KEY,
  TEST_SERVER_URL_VAR,
  TEST_TEMPLATE_VAR,
  withDatabase,
} from './test-database';

declare global {
  var __ROA_EMBEDDED_STOP__: (() => Promise<void>) | undefined;
}

const REPOSITORY = join(__dirname, '..', '..');

/**
 * Builds dist/ when a source is newer (`npx jest <spec>` tests the source as it is). Then one PostgreSQL per run: TEST_DATABASE_URL's server when given, else an embedded one (fsync off).
 * Migrations are applied once, by the service's own migration command, into a template database that every
 * spec clones.
 */
export default async function globalSetup(): Promise<void> {
  if (!buildWhenStale(REPOSITORY))
    throw new Error('npm run build failed: the specs need a build of the current source.');
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'roa-test-'));
    chmodSync(dir, 0o755);
    const embedded = await startEmbeddedPostgres({
      dir,
      database: 'postgres',
      ephemeral: true,
    });
    globalThis.__ROA_EMBEDDED_STOP__ = () => embedded.stop();
    serverUrl = embedded.adminUrl;
  }
  const template = `roa_test_${process.pid}`;
  await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${template}"`);
  await adminQuery(serverUrl, `CREATE DATABASE "${template}"`);
  const migrate = spawnSync(process.execPath, ['dist/platform/database/migrate.js', 'run'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: withDatabase(serverUrl, template),
      DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
    },
    encoding: 'utf8',
  });
  if (migrate.status !== 0)
    throw new Error(`Migrating the test template failed:\n${migrate.stderr}${migrate.stdout}`);
  process.env[TEST_SERVER_URL_VAR] = serverUrl;
  process.env[TEST_TEMPLATE_VAR] = template;
}
