import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  expiresAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The in-process counter store (no REDIS_URL): a fixed window per key, as the Redis store's script
 * (@nest-lab/throttler-storage-redis) counts it, so one instance counts like several sharing a Redis. A key over
 * its limit is refused until its window ends and no longer: a refused request counts in the window it was sent
 * in, never in the next. A request costs one map look-up; @nestjs/throttler's own in-memory store keeps a
 * timestamp per hit and filters them all on every request, which grows with the budget.
 */
export class FixedWindowStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweep = setInterval(() => this.forgetExpired(), SWEEP_INTERVAL_MS).unref();

  increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const id = `${key}:${throttlerName}`;
    let window = this.windows.get(id);
    if (!window || window.expiresAt <= now) {
      window = { hits: 0, expiresAt: now + ttl };
      this.windows.set(id, window);
    }
    window.hits += 1;
    const timeToExpire = Math.ceil((window.expiresAt - now) / 1000);
    const isBlocked = window.hits > limit;
    return Promise.resolve({
      totalHits: window.hits,
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? timeToExpire : 0,
    });
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweep);
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [id, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(id);
  }
}
