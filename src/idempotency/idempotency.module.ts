import { Module } from '@nestjs/common';
import { IdempotencyCleanup } from './idempotency-cleanup';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyCleanup],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
