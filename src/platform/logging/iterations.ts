/** A job's iteration in progress: when it started and how long it may take before it counts as stalled. */
interface Iteration {
  startedAt: number;
  boundMs: number;
}

/** The background jobs' iterations in progress (JobLog), for a worker's readiness. */
export class Iterations {
  private readonly running = new Map<string, Iteration>();

  started(job: string, boundMs: number, now = Date.now()): void {
    this.running.set(job, { startedAt: now, boundMs });
  }

  ended(job: string): void {
    this.running.delete(job);
  }

  /** The jobs whose iteration in progress has outrun its bound. */
  stalled(now = Date.now()): string[] {
    return [...this.running]
      .filter(([, iteration]) => now - iteration.startedAt > iteration.boundMs)
      .map(([job]) => job);
  }
}
