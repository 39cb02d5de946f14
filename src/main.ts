import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { validateEnvironment } from './platform/config/environment';
import { createApp } from './app';
import { assertRedisReachable } from './platform/config/redis-check';
import { startupFailureLine } from './platform/config/startup-error';
import { assertPortFree } from './platform/database/free-port';
import { assertTimeoutsInForce } from './platform/database/pooled-settings';
import {
  assertReachable,
  LOCAL_DATA_DIR,
  resolveDatabase,
  resolveDeviceCredentialsKey,
  type ResolvedDatabase,
} from './platform/database/local-database';
import { prepareDemo } from './demo/demo-seed';
import { FrameworkLogger } from './platform/logging/loggers';

/**
 * How far V8 lets the old generation grow past what the last full collection kept before it collects again:
 * 50 % instead of up to 300 % (V8 picks up to 4× the live heap when the process may use gigabytes). Under 32
 * concurrent requests every in-flight request's objects are promoted and die soon after, so the default
 * growth let the heap reach 3–4× the ~50 MB that is live (peak RSS 270–300 MB); with 1.5× it stays under
 * 200 MB. Not a cap: the heap still grows with what is live. docs/performance.md has the measurements.
 */
const HEAP_GROWING_PERCENT = 50;

/** Requests still running when SIGTERM arrives get this long to finish before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 25_000;

function onShutdownSignal(app: NestExpressApplication, database: ResolvedDatabase): void {
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const logger = app.get(FrameworkLogger);
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
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const env = validateEnvironment(process.env);
  await assertPortFree(env.PORT);
  if (env.REDIS_URL) await assertRedisReachable(env.REDIS_URL);
  const database = await resolveDatabase(env.DATABASE_URL, { shared: false });
  if (database.embedded?.abandonedPid)
    console.error(
      `The embedded PostgreSQL in ${LOCAL_DATA_DIR} (pid ${database.embedded.abandonedPid}) was left running by a process that ended without stopping it: stopped, and started again for this service.`,
    );
  if (env.DATABASE_DIRECT_URL) {
    await assertReachable(env.DATABASE_DIRECT_URL, 'DATABASE_DIRECT_URL');
    await assertTimeoutsInForce(database.url, env.DATABASE_STATEMENT_TIMEOUT_MS);
  }
  let app: NestExpressApplication;
  let port: number;
  try {
    app = await createApp(env, database.url, await resolveDeviceCredentialsKey(env));
    onShutdownSignal(app, database);
    await app.init();
    const banner = database.embedded ? await prepareDemo(app, LOCAL_DATA_DIR) : undefined;
    await app.listen(env.PORT);
    const address = app.getHttpServer().address();
    port = typeof address === 'object' && address ? address.port : env.PORT;
    if (banner) console.error(banner(port));
  } catch (error) {
    await database.embedded?.stop();
    throw error;
  }
  app.get(FrameworkLogger).log({
    event: 'listening',
    port,
    role: env.SERVICE_ROLE,
    embeddedDatabase: Boolean(database.embedded),
    msg: `Listening on port ${port}`,
  });
}

bootstrap().catch((error: unknown) => {
  console.error(startupFailureLine(error, process.env.NODE_ENV === 'production'));
  process.exit(1);
});
