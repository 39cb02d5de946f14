import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import type { Environment } from '../config/environment';
import { configuredDuties } from '../config/service-role';
import { JobLog } from '../logging/job-log';
import { PeriodicJobs } from './periodic-job';

/**
 * The scheduler and the periodic jobs' skeleton (PeriodicJobs), for every module: a module's job declares itself
 * with `add` from its provider's constructor.
 */
@Global()
@Module({
  imports: [ScheduleModule.forRoot()],
  providers: [
    {
      provide: PeriodicJobs,
      inject: [SchedulerRegistry, JobLog, ConfigService],
      useFactory: (scheduler: SchedulerRegistry, jobLog: JobLog, config: ConfigService<Environment, true>) =>
        new PeriodicJobs(scheduler, jobLog, configuredDuties(config).jobs),
    },
  ],
  exports: [PeriodicJobs],
})
export class JobsModule {}
