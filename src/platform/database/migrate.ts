import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { validateEnvironment } from '../config/environment';
import { StartupError } from '../config/startup-error';
import { ENTITIES } from '../../entities';
import { dataSourceOptions } from './data-source-options';
import { resolveDatabase, resolveDeviceCredentialsKey } from './local-database';
import { runPendingMigrations } from './migrations';

const USAGE = 'usage: migrate run | check | generate migrations/<Name>';

/** Hands over to TypeORM's CLI for schema diffing, against the database we resolved and migrated. */
function typeormMigrationGenerate(url: string, args: string[]): number {
  const cli = require.resolve('typeorm/cli.js');
  const dataSourceFile = join(__dirname, 'cli-data-source.js');
  const result = spawnSync(process.execPath, [cli, 'migration:generate', '-d', dataSourceFile, ...args], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url },
  });
  return result.status ?? 1;
}

async function main(argv: string[]): Promise<number> {
  const [command, target] = argv;
  if (!command || !['run', 'check', 'generate'].includes(command) || (command === 'generate' && !target)) {
    console.error(USAGE);
    return 2;
  }
  const env = validateEnvironment(process.env);
  // Migrations are session work (a lock, DDL): straight to the primary, not through a pooler.
  const database = await resolveDatabase(env.DATABASE_DIRECT_URL ?? env.DATABASE_URL, { shared: true });
  const dataSource = new DataSource(
    dataSourceOptions({ url: database.url, entities: ENTITIES, poolSize: 2 }),
  );
  try {
    await dataSource.initialize();
    const applied = await runPendingMigrations(
      dataSource,
      await resolveDeviceCredentialsKey(env),
      database.url,
    );
    await dataSource.destroy();
    if (command === 'run') {
      process.stdout.write(`${JSON.stringify({ applied })}\n`);
      return 0;
    }
    return typeormMigrationGenerate(
      database.url,
      command === 'check' ? ['--check', 'migrations/Check'] : [target],
    );
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof StartupError ? error.message : error);
    process.exit(1);
  },
);
