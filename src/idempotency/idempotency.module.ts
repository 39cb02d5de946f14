import { Module } from '@nestjs/common';
import { IdempotencyCleanup } from './idempotency-cleanup';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { IdempotencyKey } from './idempotency-key.entity';

@OwnsEntities(IdempotencyKey)
@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyCleanup],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
