import { Injectable } from '@nestjs/common';
import { PeriodicJobs, type RunReport } from '../platform/jobs/periodic-job';
import { ServiceLogger } from '../platform/logging/loggers';
import { ImportsRepository } from './imports.repository';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
/** An upload still arriving after this long was cut off by a crash of its instance (the idle timeout is 30 s). */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** Deletes the imports whose upload a crash interrupted (still `uploading`), with their lines: a periodic job. */
@Injectable()
export class ImportUploadsCleanup {
  constructor(
    private readonly imports: ImportsRepository,
    logger: ServiceLogger,
    jobs: PeriodicJobs,
  ) {
    logger.setContext(ImportUploadsCleanup.name);
    jobs.add({
      name: 'import-uploads-cleanup',
      intervalMs: CLEANUP_INTERVAL_MS,
      work: 'Deleting abandoned import uploads',
      logger,
      run: () => this.run(),
    });
  }

  private async run(): Promise<RunReport | undefined> {
    const deleted = await this.imports.removeAbandonedUploads(ABANDONED_AFTER_MS);
    return deleted > 0
      ? {
          fields: { event: 'import_uploads_abandoned', deleted },
          message: 'Abandoned import uploads deleted',
        }
      : undefined;
  }
}
