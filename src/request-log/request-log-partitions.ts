import { Injectable } from '@nestjs/common';
import { PeriodicJobs, type RunReport } from '../platform/jobs/periodic-job';
import { ServiceLogger } from '../platform/logging/loggers';
import { dayOf, partitionName, RequestLogRepository } from './request-log.repository';

/** The days the request log keeps (CONTRACT §4.12). */
export const RETENTION_DAYS = 14;
/** Days created ahead of today, so that a write never waits for a partition's creation. */
const DAYS_AHEAD = 2;
const INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the request log's daily partitions (at start and every hour, where SERVICE_ROLE runs the periodic jobs):
 * creates today's and the next two days', and drops each day whose every request is older than 14 days, whole,
 * so retention costs one DROP per day whatever the day held (no row is deleted one by one, nothing to vacuum).
 * The writer creates a missing day's partition itself, so an instance without the periodic jobs never fails a
 * write.
 */
@Injectable()
export class RequestLogPartitions {
  constructor(
    private readonly repository: RequestLogRepository,
    logger: ServiceLogger,
    jobs: PeriodicJobs,
  ) {
    logger.setContext(RequestLogPartitions.name);
    jobs.add({
      name: 'request-log-partitions',
      intervalMs: INTERVAL_MS,
      work: "Keeping the request log's partitions",
      logger,
      run: () => this.run(),
    });
  }

  /** One run: the days ahead created, the days past the retention dropped; `now` in ms since the epoch. */
  async run(now = Date.now()): Promise<RunReport | undefined> {
    const today = dayOf(now).getTime();
    await this.repository.ensurePartitions(
      Array.from({ length: DAYS_AHEAD + 1 }, (_, ahead) => new Date(today + ahead * DAY_MS)),
    );
    // A day is dropped once its end is more than RETENTION_DAYS ago: a request is kept at least 14 days.
    const expired = (await this.repository.partitionDays()).filter(
      (day) => day.getTime() + DAY_MS <= now - RETENTION_DAYS * DAY_MS,
    );
    for (const day of expired) await this.repository.dropPartition(day);
    return expired.length > 0
      ? {
          fields: { event: 'request_log_days_dropped', partitions: expired.map(partitionName) },
          message: 'Request log days past the retention dropped',
        }
      : undefined;
  }
}
