import type { ServiceLogger } from '../logging/loggers';

/** The longest wait between two tries while an outage lasts, however long it lasts. */
const OUTAGE_MAX_DELAY_MS = 10_000;

/**
 * What a background loop on the database (the webhook dispatcher, the NOTIFY listener) does while its work keeps
 * failing: one warning when the outage starts and one line when it ends, none in between, and tries spaced out
 * from `baseMs`, doubling up to OUTAGE_MAX_DELAY_MS, instead of a warning with a stack at every poll. The
 * periodic jobs use its two lines only: they try again at their next interval.
 */
export class Outage {
  private startedAt?: number;
  private failures = 0;

  constructor(
    private readonly logger: Pick<ServiceLogger, 'info' | 'warn'>,
    /** What stops while it lasts, for the log lines: "Webhook dispatch", say. */
    private readonly work: string,
    private readonly baseMs: number,
  ) {}

  /** A try failed: warns if this starts an outage; returns how long to wait before the next try. */
  failed(error: unknown): number {
    if (this.startedAt === undefined) {
      this.startedAt = Date.now();
      this.logger.warn(
        { event: 'outage_started', cause: error instanceof Error ? error.message : String(error) },
        `${this.work} is failing; retrying with backoff, and logging again once it recovers`,
      );
    }
    this.failures += 1;
    return Math.min(OUTAGE_MAX_DELAY_MS, this.baseMs * 2 ** Math.min(this.failures - 1, 30));
  }

  /** A try succeeded: ends the outage, if one was going on, with one line saying how long it lasted. */
  succeeded(): void {
    if (this.startedAt === undefined) return;
    const durationMs = Date.now() - this.startedAt;
    this.startedAt = undefined;
    this.failures = 0;
    this.logger.info({ event: 'outage_ended', durationMs }, `${this.work} has recovered`);
  }
}
