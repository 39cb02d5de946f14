import { AsyncResource } from 'node:async_hooks';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../platform/config/environment';
import { type EndedRequest, RequestEnds } from '../platform/http/request-ends';
import { ServiceLogger } from '../platform/logging/loggers';
import { dayOf, type NewRequestLogEntry, RequestLogRepository } from './request-log.repository';

/** Rows per INSERT: a full buffer is written at once, without waiting for the interval. */
export const BATCH_ROWS = 1_000;
/** Rows held while the database refuses the writes; the newest beyond are dropped (and counted on a line). */
const MAX_BUFFERED_ROWS = 50_000;
const MAX_PATH = 2_048;
/** The routes whose `id` parameter is an order's id. */
const ORDER_ROUTE = /^\/api\/v2\/order\/:id(\/|$)/;
const MAX_DB_INTEGER = 2_147_483_647;

/**
 * Records every request made with a company's token (CONTRACT §4.12), off the request's path: the request log
 * middleware tells it of each request that ended (RequestEnds), it keeps the row in memory, and writes what it
 * holds in one multi-row INSERT every REQUEST_LOG_FLUSH_MS, or at once when BATCH_ROWS are waiting, and a last
 * time when the application stops. A request waits for none of it. What is kept: the method, route, path,
 * status, duration, request id, token id and user name, Idempotency-Key, the order a successful request
 * touched and the error body of a 4xx/5xx; never a request body, another header, or a token.
 */
@Injectable()
export class RequestLogWriter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private buffer: NewRequestLogEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly days = new Set<number>();
  private dropped = 0;
  private readonly enabled: boolean;
  private readonly flushMs: number;
  /**
   * A flush started by a request's end, run in the writer's own async context (bound here, outside any request):
   * its statements are never counted or logged as the request's.
   */
  private readonly flushSoon = AsyncResource.bind(() => void this.flush());

  constructor(
    private readonly repository: RequestLogRepository,
    private readonly ends: RequestEnds,
    private readonly logger: ServiceLogger,
    config: ConfigService<Environment, true>,
  ) {
    this.logger.setContext(RequestLogWriter.name);
    this.enabled = config.get('REQUEST_LOG', { infer: true });
    this.flushMs = config.get('REQUEST_LOG_FLUSH_MS', { infer: true });
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.ends.listen((ended) => this.record(ended));
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes what is buffered (after any write in progress): resolves once it is in the table, or failed. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeBuffered());
    return this.writing;
  }

  private record({ request, status, startedAt, durationMs, route, path }: EndedRequest): void {
    const user = request.user;
    if (!user || user.companyId === null) return;
    if (this.buffer.length >= MAX_BUFFERED_ROWS) {
      this.dropped += 1;
      return;
    }
    const key = request.headers['idempotency-key'];
    this.buffer.push({
      createdAt: new Date(startedAt),
      companyId: user.companyId,
      tokenId: user.tokenId,
      userName: user.userName,
      requestId: request.id ?? '',
      method: (request.method ?? '').slice(0, 16),
      route: route?.slice(0, 255) ?? null,
      path: path.slice(0, MAX_PATH),
      status,
      durationMs,
      idempotencyKey: typeof key === 'string' ? key.slice(0, 255) : null,
      orderId: status < 400 ? orderOf(request, route) : null,
      responseBody: status >= 400 ? errorBodyOf(request.errorBody) : null,
    });
    if (this.buffer.length === BATCH_ROWS) this.flushSoon();
  }

  private async writeBuffered(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, BATCH_ROWS);
      try {
        const days = [...new Set(batch.map((row) => dayOf(row.createdAt).getTime()))];
        const missing = days.filter((day) => !this.days.has(day));
        if (missing.length > 0) {
          await this.repository.ensurePartitions(missing.map((day) => new Date(day)));
          for (const day of missing) this.days.add(day);
        }
        await this.repository.insert(batch);
      } catch (error) {
        this.logger.warn(
          { err: error, buffered: this.buffer.length },
          'Request log not written: kept in memory for the next flush',
        );
        return;
      }
      this.buffer = this.buffer.slice(batch.length);
    }
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, 'Request log: requests dropped while the buffer was full');
      this.dropped = 0;
    }
  }
}

/** The order a successful request placed (the placement notes it) or named in its route. */
function orderOf(request: EndedRequest['request'], route: string | undefined): number | null {
  if (request.placedOrderId !== undefined) return request.placedOrderId;
  if (route === undefined || !ORDER_ROUTE.test(route)) return null;
  const id = Number(request.params?.id);
  return Number.isInteger(id) && id >= 1 && id <= MAX_DB_INTEGER ? id : null;
}

function errorBodyOf(body: unknown): Record<string, unknown> | null {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
}
