import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Environment } from '../platform/config/environment';
import { FixedWindowStorage } from './fixed-window-storage';

/**
 * One budget per fixed window of a minute (RATE_LIMIT_PER_MINUTE; RATE_LIMIT_WINDOW_MS in tests); a token over
 * it is refused for the rest of that window. Counters live in Redis when REDIS_URL is set, so every instance
 * draws on one budget; otherwise in memory, counted the same way.
 * The Redis client fails fast (no offline queue, one retry) so a Redis outage never stalls requests.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<Environment, true>) => {
        const redisUrl = config.get('REDIS_URL', { infer: true });
        return {
          throttlers: [
            {
              name: 'default',
              ttl: config.get('RATE_LIMIT_WINDOW_MS', { infer: true }),
              limit: config.get('RATE_LIMIT_PER_MINUTE', { infer: true }),
            },
          ],
          storage: redisUrl
            ? new ThrottlerStorageRedisService(redisUrl, {
                enableOfflineQueue: false,
                maxRetriesPerRequest: 1,
                connectTimeout: 1_000,
              })
            : new FixedWindowStorage(),
        };
      },
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}
