import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { createValidationPipe } from './kernel/validation';
import type { Environment } from './platform/config/environment';
import { dutiesOf } from './platform/config/service-role';
import { serveAdminConsole } from './platform/http/admin-console';
import { allowCors, setSecurityHeaders } from './platform/http/http-security';
import { inSequence } from './platform/http/middleware-sequence';
import { refuseInvalidHost } from './platform/http/public-url';
import { RequestBodyInterceptor } from './platform/http/request-body';
import { refuseMalformedPath } from './platform/http/request-path';
import { onlyWorkerRoutes } from './platform/http/worker-routes';
import { createRequestLog, type LogDestination } from './platform/logging/logger.options';
import { FrameworkLogger } from './platform/logging/loggers';
import { httpMetrics } from './platform/metrics/http-metrics';
import { setupOpenApi } from './platform/openapi/openapi';

const BODY_LIMIT = '1mb';

/**
 * The HTTP application, built and configured but not initialised or listening: what `main.ts` runs, and what the
 * in-process specs (test/harness/app.ts) build in the test process. `logDestination` replaces stdout (the specs
 * read the lines back).
 */
export async function createApp(
  env: Environment,
  databaseUrl: string,
  deviceCredentialsKey: Buffer,
  logDestination?: LogDestination,
): Promise<NestExpressApplication> {
  const requestLog = createRequestLog(
    env.LOG_LEVEL,
    env.NODE_ENV !== 'production' && process.stdout.isTTY && !logDestination,
    env.LOG_SQL,
    logDestination,
  );
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({
      env,
      databaseUrl,
      logger: requestLog.logger,
      deviceCredentialsKey,
      requestEnds: requestLog.ends,
    }),
    {
      bufferLogs: true,
      // A failed start is reported by bootstrap's one line: no abort, and none of the buffered framework lines.
      abortOnError: false,
      autoFlushLogs: false,
      bodyParser: false,
    },
  );
  app.useLogger(app.get(FrameworkLogger));
  app.flushLogs();
  app.disable('x-powered-by');
  // The only ETag is an order's version (CONTRACT §8), set where an order is returned; no content hashes.
  app.set('etag', false);
  // What every request crosses, as two Express layers (inSequence) rather than one layer each.
  app.use(inSequence(...httpMetrics(app), requestLog.middleware, setSecurityHeaders()));
  if (!dutiesOf(env).api) {
    app.use(onlyWorkerRoutes);
    return app;
  }
  allowCors(app, env.CORS_ORIGINS);
  serveAdminConsole(app);
  app.use(inSequence(refuseInvalidHost, refuseMalformedPath));
  // The body is read after the guards: who calls, within which budget, decides whether it is read at all.
  app.useGlobalInterceptors(
    new RequestBodyInterceptor({ limit: BODY_LIMIT, timeoutMs: env.REQUEST_BODY_TIMEOUT_MS }),
  );
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, env.PUBLIC_BASE_URL);
  return app;
}
