import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import pino from 'pino';
import { DomainError } from '../kernel/domain-error';
import { InvalidEnvironmentError, validateEnvironment } from '../platform/config/environment';
import { StartupError } from '../platform/config/startup-error';
import { resolveDatabase, resolveDeviceCredentialsKey } from '../platform/database/local-database';
import { CliInputError } from './cli-input';
import { ENTITIES } from '../entities';
import { CliModule } from './cli.module';

/** How the documents run the CLI. */
const CLI_USAGE_NAME = 'npm run -s cli --';

/** What to tell the operator on stderr, and the exit code. */
function describeFailure(error: unknown): { message: string; code: number } {
  const commander = error as { code?: unknown; exitCode?: unknown };
  if (typeof commander.code === 'string' && commander.code.startsWith('commander.')) {
    return { message: '', code: typeof commander.exitCode === 'number' ? commander.exitCode : 2 };
  }
  if (error instanceof InvalidEnvironmentError || error instanceof CliInputError)
    return { message: error.message, code: 2 };
  if (error instanceof StartupError) return { message: error.message, code: 1 };
  if (error instanceof DomainError) {
    const fields = Object.entries(error.fieldErrors ?? {}).map(
      ([field, messages]) => `--${field.replace(/_/g, '-')}: ${messages.join(' ')}`,
    );
    return { message: fields.length > 0 ? fields.join('\n') : error.message, code: 1 };
  }
  return { message: `Failed: ${error instanceof Error ? error.message : String(error)}`, code: 1 };
}

async function main(): Promise<number> {
  const env = validateEnvironment(process.env);
  const database = await resolveDatabase(env.DATABASE_URL, { shared: true });
  const logger = pino({ level: env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL }, pino.destination(2));
  let failure: unknown;
  try {
    const deviceCredentialsKey = await resolveDeviceCredentialsKey(env);
    const settings = { env, databaseUrl: database.url, entities: ENTITIES, logger, deviceCredentialsKey };
    await CommandFactory.run(CliModule.forRoot(settings), {
      logger: ['error', 'warn'],
      helpConfiguration: {
        // `Usage: npm run -s cli -- tokens:create [options]`, not commander's name from the file (`main`).
        commandUsage: (command) => {
          const names: string[] = [];
          for (let current = command; current.parent; current = current.parent) names.unshift(current.name());
          return [CLI_USAGE_NAME, ...names, command.usage()].join(' ');
        },
      },
      errorHandler: (error) => {
        failure = error;
      },
      serviceErrorHandler: (error) => {
        failure = error;
      },
    });
  } finally {
    await database.embedded?.stop();
  }
  if (failure === undefined) return 0;
  const { message, code } = describeFailure(failure);
  if (message) console.error(message);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { message, code } = describeFailure(error);
    console.error(message);
    process.exit(code);
  },
);
