import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import type { Environment } from '../config/environment';
import { DirectSession } from '../database/direct-session';
import { ReplicaReads } from '../database/replica-reads';
import { type CommittedEvent, CommittedEvents } from './committed-events';

/** What pg's Pool exposes about its connections (TypeORM's postgres driver keeps it as `master`). */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Every series the service exports (CONTRACT §8, metrics), on its own registry. Labels are bounded sets only:
 * route templates, methods, status codes, states, outcomes; never ids or paths.
 */
@Injectable()
export class AppMetrics implements OnModuleInit {
  readonly registry = new Registry();
  readonly enabled: boolean;

  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, with their latency in seconds',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by the rate limit',
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded, retry, failed (gave up), gone (410), cancelled (the endpoint stopped meanwhile)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly webhookDue = new Gauge({
    name: 'webhook_deliveries_due',
    help: 'Webhook deliveries waiting to be sent now (the outbox backlog)',
    registers: [this.registry],
  });

  private readonly webhookFailing = new Gauge({
    name: 'webhook_deliveries_failing',
    help: 'Pending webhook deliveries whose earlier attempts failed (being retried)',
    registers: [this.registry],
  });

  private readonly webhookOldestDueAge = new Gauge({
    name: 'webhook_oldest_due_age_seconds',
    help: 'How long the oldest due webhook delivery has been waiting, in seconds (0 when none is due)',
    registers: [this.registry],
  });

  /** What the modules count of the events a transaction writes, once it has committed (whenCommitted). */
  private readonly commitListeners: ((drafts: CommittedEvent[]) => void)[] = [];

  private readonly committedEvents = new CommittedEvents((drafts) => {
    for (const listener of this.commitListeners) listener(drafts);
  });

  constructor(
    config: ConfigService<Environment, true>,
    @InjectDataSource() private readonly dataSource: DataSource,
    replicaReads: ReplicaReads,
    directSession: DirectSession,
  ) {
    this.enabled = config.get('METRICS_PORT', { infer: true }) > 0;
    this.registry.registerMetric(replicaReads.reads);
    new Gauge({
      name: 'db_direct_session_up',
      help:
        'Whether the direct database session (DATABASE_DIRECT_URL) answered within the last second (1) or not ' +
        '(0: exports answer 503, caches are bypassed)',
      registers: [this.registry],
      async collect() {
        this.set((await directSession.answers()) ? 1 : 0);
      },
    });
    if (this.enabled) collectDefaultMetrics({ register: this.registry });
    const pool = () => (dataSource.driver as unknown as { master?: PoolCounts }).master;
    const poolGauge = (name: string, help: string, read: (counts: PoolCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const counts = pool();
          if (counts) this.set(read(counts));
        },
      });
    poolGauge(
      'db_pool_connections_in_use',
      'Database connections checked out of the pool',
      (counts) => counts.totalCount - counts.idleCount,
    );
    poolGauge(
      'db_pool_connections_idle',
      'Open database connections waiting in the pool',
      (counts) => counts.idleCount,
    );
    poolGauge(
      'db_pool_waiting',
      'Requests waiting for a database connection',
      (counts) => counts.waitingCount,
    );
  }

  onModuleInit(): void {
    this.dataSource.subscribers.push(this.committedEvents);
  }

  /**
   * Called by a module as it is built, with what it counts of the events a transaction writes (its series on
   * `registry`): the listener runs when (and only if) that transaction commits.
   */
  whenCommitted(listener: (drafts: CommittedEvent[]) => void): void {
    this.commitListeners.push(listener);
  }

  /** Called with the events a transaction writes; they are counted when (and only if) it commits. */
  countOnCommit(manager: EntityManager, drafts: CommittedEvent[]): void {
    this.committedEvents.add(manager, drafts);
  }

  /**
   * The Prometheus text of every series, the outbox figures read from the database first (one statement on
   * webhook_deliveries_due_idx; NaN while the database cannot answer, so the rest is still scraped).
   */
  async scrape(): Promise<string> {
    const outbox = await this.readOutbox().catch(() => ({ due: NaN, failing: NaN, oldestDueSeconds: NaN }));
    this.webhookDue.set(outbox.due);
    this.webhookFailing.set(outbox.failing);
    this.webhookOldestDueAge.set(outbox.oldestDueSeconds);
    return this.registry.metrics();
  }

  private async readOutbox(): Promise<{ due: number; failing: number; oldestDueSeconds: number }> {
    const [row] = await this.dataSource.query<{ due: string; failing: string; oldest_due_seconds: string }[]>(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= now()) AS due,
              count(*) FILTER (WHERE attempt_count > 0) AS failing,
              coalesce(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)
                AS oldest_due_seconds
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return {
      due: Number(row.due),
      failing: Number(row.failing),
      oldestDueSeconds: Number(row.oldest_due_seconds),
    };
  }
}
