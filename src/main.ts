import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { secureHttp } from './common/http-security';
import { setupOpenApi } from './common/openapi';
import { createValidationPipe } from './common/validation';
import { type Environment, InvalidEnvironmentError, validateEnvironment } from './config/environment';
import { countQueries } from './database/query-counter';
import {
  LOCAL_DATA_DIR,
  resolveDatabase,
  resolveDeviceCredentialsKey,
  type ResolvedDatabase,
} from './database/local-database';
import { seedDemo } from './demo/demo-seed';
import { createRequestLog } from './logging/logger.options';

/** Requests still running when SIGTERM arrives get this long to finish before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

const BODY_LIMIT = '1mb';

async function createApp(
  env: Environment,
  databaseUrl: string,
  deviceCredentialsKey: Buffer,
): Promise<NestExpressApplication> {
  const requestLog = createRequestLog(env.LOG_LEVEL);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ env, databaseUrl, logger: requestLog.logger, deviceCredentialsKey }),
    {
      bufferLogs: true,
      bodyParser: false,
    },
  );
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // The contract's one ETag is the order version, set by the routes that return an order.
  app.set('etag', false);
  app.use(requestLog.middleware);
  secureHttp(app, env.CORS_ORIGINS);
  app.use(countQueries);
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, env.PUBLIC_BASE_URL);
  return app;
}

function onShutdownSignal(app: NestExpressApplication, database: ResolvedDatabase): void {
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const logger = app.get(Logger);
    logger.log({
      event: 'shutdown',
      signal,
      msg: 'Stopping: no new connections, finishing requests in flight',
    });
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    await app.close();
    await database.embedded?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void shutdown(signal));
  process.on('SIGINT', (signal) => void shutdown(signal));
}

async function bootstrap(): Promise<void> {
  const env = validateEnvironment(process.env);
  const database = await resolveDatabase(env.DATABASE_URL);
  let app: NestExpressApplication;
  try {
    app = await createApp(env, database.url, await resolveDeviceCredentialsKey(env));
    onShutdownSignal(app, database);
    await app.listen(env.PORT);
  } catch (error) {
    await database.embedded?.stop();
    throw error;
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  if (database.embedded?.initialised) console.error(await seedDemo(app, LOCAL_DATA_DIR, port));
  app.get(Logger).log({
    event: 'listening',
    port,
    embeddedDatabase: Boolean(database.embedded),
    msg: `Listening on port ${port}`,
  });
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidEnvironmentError) {
    console.error(error.message);
  } else {
    console.error('The service could not start:', error);
  }
  process.exit(1);
});
