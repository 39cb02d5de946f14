import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Logger } from 'pino';
import type { Environment } from '../config/environment';
import { Iterations } from './iterations';
import { runLoggedJob } from './log-lines';
import { ROOT_LOGGER } from './loggers';

/**
 * A background job's iteration, seen as a request is: with LOG_SQL it runs in a context of its own and ends with
 * one line carrying its statements (runLoggedJob). Without LOG_SQL it only runs the iteration: no context, no
 * array, no line. Either way the iteration in progress is noted, so a worker's readiness can tell a job that
 * hangs (stalled()).
 */
@Injectable()
export class JobLog {
  private readonly logSql: boolean;
  private readonly iterations = new Iterations();

  constructor(
    @Inject(ROOT_LOGGER) private readonly root: Logger,
    config: ConfigService<Environment, true>,
  ) {
    this.logSql = config.get('LOG_SQL', { infer: true });
  }

  /** Runs one iteration of `job`, which should end within `boundMs` (else stalled() names the job). */
  async run<T>(job: string, boundMs: number, work: () => Promise<T>): Promise<T> {
    this.iterations.started(job, boundMs);
    try {
      return await (this.logSql ? runLoggedJob(this.root, job, work) : work());
    } finally {
      this.iterations.ended(job);
    }
  }

  /** The jobs whose iteration in progress has outrun its bound. */
  stalled(): string[] {
    return this.iterations.stalled();
  }
}
