import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions, type EntityList } from './data-source-options';
import { runPendingMigrations } from './migrations';
import { Notifications } from './notifications';
import { PreparedStatements } from './prepared-statements';
import { REPLICA_SETTINGS, ReplicaReads } from './replica-reads';
import { UnitOfWork } from './unit-of-work';
import { WritePositions } from './write-positions';

export interface DatabaseModuleOptions {
  url: string;
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
            if (options.runMigrations) await runPendingMigrations(dataSource, options.deviceCredentialsKey);
            return dataSource;
          },
        }),
      ],
      providers: [
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
      exports: [UnitOfWork, Notifications, PreparedStatements, WritePositions, ReplicaReads],
    };
  }
}
