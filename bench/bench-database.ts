import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';

/** Where the bench keeps its own embedded cluster when DATABASE_URL is unset. */
const BENCH_DATA_DIR = join(__dirname, '..', '.data', 'bench');
const MIGRATE = join(__dirname, '..', 'dist', 'platform', 'database', 'migrate.js');

/**
 * The key that seals the bench orders' device credentials (DEVICE_CREDENTIALS_KEY of every process the bench
 * starts): fixed, so a seeded database stays readable across runs. A bench key, never a production one.
 */
export const BENCH_DEVICE_CREDENTIALS_KEY =
  'be7c4e5a1d0f9b3c6a2e8d4f7b1c5a9e3d6f0b2a8c4e7d1f5b9a3c6e0d2f8b4a';

/** A PostgreSQL server the bench may create its own databases in (`bench_<orders>`). */
export interface BenchServer {
  /** URL of the bench database `name` on this server. */
  urlOf(name: string): string;
  exists(name: string): Promise<boolean>;
  /** Drops and creates `name`, then applies the project's migrations to it. */
  recreate(name: string): Promise<void>;
  /** Drops `copy` and creates it as a copy of `name` (CREATE DATABASE ... TEMPLATE): a run's own data. */
  clone(name: string, copy: string): Promise<void>;
  drop(name: string): Promise<void>;
  stop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * DATABASE_URL names the server (the bench only ever creates, fills and drops databases called `bench_*`
 * on it); unset, an embedded PostgreSQL under ./.data/bench, kept between runs so the seed is paid once.
 */
export async function openBenchServer(): Promise<BenchServer> {
  let embedded: EmbeddedPostgres | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ dir: BENCH_DATA_DIR, database: 'postgres' });
    adminUrl = embedded.adminUrl;
  }
  const admin = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const assertBenchName = (name: string) => {
    if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`Not a bench database name: ${name}`);
  };
  return {
    urlOf: (name) => withDatabase(adminUrl, name),
    exists: (name) =>
      admin(async (client) => {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        return found.rowCount === 1;
      }),
    recreate: async (name) => {
      assertBenchName(name);
      await admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.query(`CREATE DATABASE ${name}`);
      });
      const migrated = spawnSync(process.execPath, [MIGRATE, 'run'], {
        env: {
          ...process.env,
          DATABASE_URL: withDatabase(adminUrl, name),
          DEVICE_CREDENTIALS_KEY: BENCH_DEVICE_CREDENTIALS_KEY,
        },
        encoding: 'utf8',
      });
      if (migrated.status !== 0) throw new Error(`Migrations failed on ${name}:\n${migrated.stderr}`);
    },
    clone: async (name, copy) => {
      assertBenchName(copy);
      await admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
        // FILE_COPY copies the files after a checkpoint instead of writing every page through the WAL: seconds
        // instead of minutes for the 10M database.
        await client.query(`CREATE DATABASE ${copy} TEMPLATE ${name} STRATEGY FILE_COPY`);
      });
    },
    drop: async (name) => {
      assertBenchName(name);
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
    stop: async () => {
      await embedded?.stop();
    },
  };
}

export const benchDatabaseName = (orders: number) => `bench_${orders}`;
