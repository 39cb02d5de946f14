import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions, directSessionConfig, type EntityList } from './data-source-options';
import { DIRECT_SESSION_CONFIG, DirectSession } from './direct-session';
import { runPendingMigrations } from './migrations';
import { Notifications } from './notifications';
import { NAMED_PREPARED_STATEMENTS, PreparedStatements } from './prepared-statements';
import { REPLICA_SETTINGS, ReplicaReads } from './replica-reads';
import { UnitOfWork } from './unit-of-work';
import { WritePositions } from './write-positions';

export interface DatabaseModuleOptions {
  url: string;
  /** DATABASE_DIRECT_URL, else DATABASE_URL: where the direct session and the migration lock go. */
  directUrl: string;
  /** DATABASE_URL is a transaction-mode pooler: nothing on it may rely on session state. */
  pooled: boolean;
  /** DATABASE_PREPARED_STATEMENTS: whether named prepared statements may be used on DATABASE_URL. */
  preparedStatements: boolean;
  entities: EntityList;
  poolSize: number;
  statementTimeoutMs: number;
  runMigrations: boolean;
  /** DATABASE_REPLICA_URL: read replicas (none: every read on `url`), each with a pool of `replicaPoolSize`. */
  replicaUrls: string[];
  replicaPoolSize: number;
  /** Data migrations seal device credentials stored before encryption existed. */
  deviceCredentialsKey: Buffer;
}

@Module({})
export class DatabaseModule {
  /** The app's single DataSource; pending migrations are applied under the advisory lock before it serves. */
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(options), retryAttempts: 5, retryDelay: 2_000 }),
          dataSourceFactory: async (settings) => {
            const dataSource = await new DataSource(settings!).initialize();
            if (options.runMigrations)
              await runPendingMigrations(dataSource, options.deviceCredentialsKey, options.directUrl);
            return dataSource;
          },
        }),
      ],
      providers: [
        {
          provide: DIRECT_SESSION_CONFIG,
          useValue: directSessionConfig(
            options.directUrl,
            'restaurant-orders-api:session',
            options.statementTimeoutMs,
          ),
        },
        { provide: NAMED_PREPARED_STATEMENTS, useValue: options.preparedStatements },
        DirectSession,
        UnitOfWork,
        Notifications,
        PreparedStatements,
        WritePositions,
        ReplicaReads,
        {
          provide: REPLICA_SETTINGS,
          useValue: {
            urls: options.replicaUrls,
            poolSize: options.replicaPoolSize,
            database: { entities: options.entities, statementTimeoutMs: options.statementTimeoutMs },
          },
        },
      ],
      exports: [UnitOfWork, Notifications, PreparedStatements, DirectSession, WritePositions, ReplicaReads],
    };
  }
}
