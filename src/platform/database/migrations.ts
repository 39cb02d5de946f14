import { Client } from 'pg';
import { type DataSource, MigrationExecutor } from 'typeorm';
import { seal, unseal } from '../../kernel/sealed-secret';
import { directSessionConfig } from './data-source-options';

/** Arbitrary but fixed: every instance of the service takes this advisory lock to migrate. */
const MIGRATION_LOCK_KEY = 7_204_311_845;

/**
 * What data migrations may need beyond SQL, handed to them as `queryRunner.data.secrets` (migrations are
 * compiled apart from src/ and cannot import it).
 */
export interface MigrationSecrets {
  /** Seals a device credential as the service stores it (sealed-secret.ts), and back (for `down`). */
  sealDeviceCredential: (plaintext: string) => string;
  unsealDeviceCredential: (sealed: string) => string;
}

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so instances starting together run
 * them once: the others wait for the lock, then find nothing pending. Returns the names applied. The lock is
 * a session's, so it is taken on a connection of its own to `lockUrl` (DATABASE_DIRECT_URL, the primary
 * itself): through a transaction-mode pooler the unlock could reach another server connection than the lock,
 * and the lock would stay held.
 */
export async function runPendingMigrations(
  dataSource: DataSource,
  deviceCredentialsKey: Buffer,
  lockUrl: string,
): Promise<string[]> {
  const lockHolder = new Client(directSessionConfig(lockUrl, 'restaurant-orders-api:migrations'));
  lockHolder.on('error', () => undefined);
  const runner = dataSource.createQueryRunner();
  const secrets: MigrationSecrets = {
    sealDeviceCredential: (plaintext) => seal(deviceCredentialsKey, plaintext),
    unsealDeviceCredential: (sealed) => unseal(deviceCredentialsKey, sealed),
  };
  runner.data = { secrets };
  try {
    await lockHolder.connect();
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    const applied = await executor.executePendingMigrations();
    return applied.map((migration) => migration.name);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockHolder.end().catch(() => undefined);
    await runner.release();
  }
}
