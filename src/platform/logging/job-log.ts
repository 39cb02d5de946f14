import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Logger } from 'pino';
import type { Environment } from '../config/environment';
import { runLoggedJob } from './log-lines';
import { ROOT_LOGGER } from './loggers';

/**
 * A background job's iteration, seen as a request is: with LOG_SQL it runs in a context of its own and ends with
 * one line carrying its statements (runLoggedJob). Without LOG_SQL it only runs the iteration: no context, no
 * array, no line.
 */
@Injectable()
export class JobLog {
  private readonly logSql: boolean;

  constructor(
    @Inject(ROOT_LOGGER) private readonly root: Logger,
    config: ConfigService<Environment, true>,
  ) {
    this.logSql = config.get('LOG_SQL', { infer: true });
  }

  run<T>(job: string, work: () => Promise<T>): Promise<T> {
    return this.logSql ? runLoggedJob(this.root, job, work) : work();
  }
}
