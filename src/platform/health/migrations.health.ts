import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MigrationExecutor } from 'typeorm';

/**
 * Whether every migration this build knows has been applied: an instance started with MIGRATIONS_RUN=false is
 * not ready until `npm run migration:run` has run. Once they are, they stay applied, and it asks no more.
 */
@Injectable()
export class MigrationsHealthIndicator {
  private applied = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key: string) {
    const indicator = this.health.check(key);
    if (this.applied) return indicator.up();
    try {
      const pending = await new MigrationExecutor(this.dataSource).getPendingMigrations();
      if (pending.length > 0) return indicator.down({ pending: pending.length });
    } catch {
      return indicator.down({ message: 'The applied migrations cannot be read.' });
    }
    this.applied = true;
    return indicator.up();
  }
}
