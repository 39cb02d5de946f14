import { Outage } from '../database/outage';
import type { JobLog } from '../logging/job-log';
import type { LogFields } from '../logging/log-lines';
import type { ServiceLogger } from '../logging/loggers';

/** The line a run that did something writes. */
export interface RunReport {
  fields: LogFields;
  message: string;
}

/** Where a job's interval is registered: the scheduler's registry (SchedulerRegistry), which clears it at shutdown. */
export interface IntervalRegistry {
  addInterval(name: string, interval: NodeJS.Timeout): void;
}

/** A periodic job, as the module that owns its work states it. */
export interface PeriodicJob {
  /** The interval's name in the scheduler, and the job's in the job log and in a worker's readiness. */
  name: string;
  /** Between two runs; also the bound a run should end within, else a worker's readiness names the job. */
  intervalMs: number;
  /** What stops while runs fail, for the outage lines: "Purging the webhook delivery log", say. */
  work: string;
  /** The job's own logger (its context set), for the outage lines and the run's report. */
  logger: Pick<ServiceLogger, 'info' | 'warn'>;
  /**
   * One run: resolves with the line to write when it did something, nothing when there was nothing to do. Work
   * in batches stops once `until` (ms since the epoch) has passed, and the next run goes on with it (inBatches).
   */
  run: (until: number) => Promise<RunReport | undefined>;
}

/** A run's share of its interval: the time a run that works in batches may take, well within its bound. */
const RUN_BUDGET_SHARE = 0.5;

/**
 * Runs `batch` (which handles at most `size` rows and resolves with how many it did) until one does fewer, or
 * `until` has passed; resolves with the rows done.
 */
export async function inBatches(batch: () => Promise<number>, size: number, until: number): Promise<number> {
  let total = 0;
  for (let done = size; done === size && Date.now() < until; total += done) done = await batch();
  return total;
}

/**
 * The skeleton of every periodic job: a run at bootstrap, then one every interval through the scheduler (which
 * clears the interval at shutdown), on instances whose SERVICE_ROLE runs the periodic jobs (`all`, `worker`).
 * A tick that comes while a run is still in progress is skipped, so runs never overlap; a run has half its
 * interval for its batches, so a backlog is worked off over several runs without outrunning the bound. Each run is an
 * iteration of the job log (its statements on one line with LOG_SQL; a worker's readiness goes down while it
 * outruns its interval), and an outage is one warning when a run first fails and one line when one succeeds.
 */
export class PeriodicJobs {
  private readonly jobs: PeriodicJob[] = [];

  constructor(
    private readonly scheduler: IntervalRegistry,
    private readonly jobLog: Pick<JobLog, 'run'>,
    /** Whether this instance runs the periodic jobs (its SERVICE_ROLE's duties). */
    private readonly enabled: boolean,
  ) {}

  /** Declares a job, from its provider's constructor: every job starts at the application's bootstrap. */
  add(job: PeriodicJob): void {
    this.jobs.push(job);
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    for (const job of this.jobs) this.start(job);
  }

  private start(job: PeriodicJob): void {
    const outage = new Outage(job.logger, job.work, job.intervalMs);
    let inProgress = false;
    const tick = async (): Promise<void> => {
      if (inProgress) return;
      inProgress = true;
      try {
        const until = Date.now() + job.intervalMs * RUN_BUDGET_SHARE;
        const report = await this.jobLog.run(job.name, job.intervalMs, () => job.run(until));
        outage.succeeded();
        if (report) job.logger.info(report.fields, report.message);
      } catch (error) {
        outage.failed(error);
      } finally {
        inProgress = false;
      }
    };
    void tick();
    this.scheduler.addInterval(
      job.name,
      setInterval(() => void tick(), job.intervalMs),
    );
  }
}
