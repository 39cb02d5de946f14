import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  expiresAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The in-process counter store (no REDIS_URL): the same fixed window and block as the Redis store's script
 * (@nest-lab/throttler-storage-redis), so one instance counts like several sharing a Redis. A request costs one
 * map look-up; @nestjs/throttler's own in-memory store keeps a timestamp per hit and filters them all on every
 * request, which grows with the budget (a token at 1,000 requests a second filters 60,000 entries each time).
 */
export class FixedWindowStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweep = setInterval(() => this.forgetExpired(), SWEEP_INTERVAL_MS).unref();

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const id = `${key}:${throttlerName}`;
    let window = this.windows.get(id);
    if (!window || window.expiresAt <= now) {
      window = { hits: 0, expiresAt: now + ttl, blockedUntil: window?.blockedUntil ?? 0 };
      this.windows.set(id, window);
    }
    window.hits += 1;
    if (window.blockedUntil <= now) window.blockedUntil = 0;
    if (window.blockedUntil === 0 && window.hits > limit) window.blockedUntil = now + blockDuration;
    return Promise.resolve({
      totalHits: window.hits,
      timeToExpire: Math.ceil((window.expiresAt - now) / 1000),
      isBlocked: window.blockedUntil !== 0,
      timeToBlockExpire: window.blockedUntil === 0 ? 0 : Math.ceil((window.blockedUntil - now) / 1000),
    });
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweep);
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [id, window] of this.windows)
      if (window.expiresAt <= now && window.blockedUntil <= now) this.windows.delete(id);
  }
}
