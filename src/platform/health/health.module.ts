import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { declareApiTag } from '../openapi/document-contributions';
import { DirectSessionHealthIndicator } from './direct-session.health';
import { HealthController } from './health.controller';
import { JobsHealthIndicator } from './jobs.health';
import { MigrationsHealthIndicator } from './migrations.health';

@Module({
  imports: [TerminusModule],
  controllers: [HealthController],
  providers: [MigrationsHealthIndicator, JobsHealthIndicator, DirectSessionHealthIndicator],
})
export class HealthModule {
  constructor() {
    declareApiTag({ name: 'health', description: 'Liveness and readiness, without a token.', rank: 60 });
  }
}
