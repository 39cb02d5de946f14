import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { Logger } from 'pino';
import { CommonModule } from './formats/formats.module';
import type { Environment } from './config/environment';
import type { EntityList } from './database/data-source-options';
import type { RequestEnds } from './http/request-ends';
import { DatabaseModule } from './database/database.module';
import { LoggingModule } from './logging/logging.module';

export interface FoundationSettings {
  /** The validated environment. */
  env: Environment;
  /** DATABASE_URL, or the URL of the embedded server started for this process. */
  databaseUrl: string;
  /** Every entity, from the composition root (src/entities.ts). */
  entities: EntityList;
  /** The pino instance everything logs through (the HTTP request logger's, for the API). */
  logger: Logger;
  /** Seals device credentials at rest (resolveDeviceCredentialsKey). */
  deviceCredentialsKey: Buffer;
  /** Every request that ended (the request log middleware's), for the API; unset for the CLI. */
  requestEnds?: RequestEnds;
}

/** What the API and the CLI both stand on: configuration, logging, the database and the shared formats. */
@Module({})
export class FoundationModule {
  static forRoot({
    env,
    databaseUrl,
    entities,
    logger,
    deviceCredentialsKey,
    requestEnds,
  }: FoundationSettings): DynamicModule {
    return {
      module: FoundationModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          skipProcessEnv: true,
          load: [() => ({ ...env })],
        }),
        LoggingModule.forRoot(logger, requestEnds),
        DatabaseModule.forRoot({
          url: databaseUrl,
          directUrl: env.DATABASE_DIRECT_URL ?? databaseUrl,
          pooled: env.DATABASE_DIRECT_URL !== undefined,
          preparedStatements: env.DATABASE_PREPARED_STATEMENTS ?? env.DATABASE_DIRECT_URL === undefined,
          entities,
          poolSize: env.DATABASE_POOL_SIZE,
          statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
          runMigrations: env.MIGRATIONS_RUN,
          replicaUrls: env.DATABASE_REPLICA_URL,
          replicaPoolSize: env.DATABASE_REPLICA_POOL_SIZE,
          deviceCredentialsKey,
        }),
        CommonModule.forRoot(deviceCredentialsKey),
      ],
      exports: [LoggingModule],
    };
  }
}
