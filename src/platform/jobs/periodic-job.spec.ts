import { Iterations } from '../logging/iterations';
import type { LogFields } from '../logging/log-lines';
import { inBatches, type PeriodicJob, PeriodicJobs, type RunReport } from './periodic-job';

const INTERVAL_MS = 10 * 60 * 1000;

interface Line {
  level: 'info' | 'warn';
  fields: LogFields;
  message: string;
}

/**
 * The skeleton with what it stands on in the service: an interval registry (the scheduler's) and a job log that
 * notes each iteration in progress, as JobLog does without LOG_SQL, so a worker's readiness can name a job.
 */
function skeleton(enabled = true) {
  const intervals = new Map<string, NodeJS.Timeout>();
  const iterations = new Iterations();
  const iterationsRun: [string, number][] = [];
  const jobs = new PeriodicJobs(
    { addInterval: (name, interval) => void intervals.set(name, interval) },
    {
      run: async (job, boundMs, work) => {
        iterationsRun.push([job, boundMs]);
        iterations.started(job, boundMs);
        try {
          return await work();
        } finally {
          iterations.ended(job);
        }
      },
    },
    enabled,
  );
  return { jobs, intervals, iterations, iterationsRun };
}

/** A job whose runs end when the test says, and its log lines. */
function job(name = 'keys-cleanup') {
  const lines: Line[] = [];
  const runs: { end: (report?: RunReport) => void; fail: (error: Error) => void }[] = [];
  const declared: PeriodicJob = {
    name,
    intervalMs: INTERVAL_MS,
    work: 'Deleting expired keys',
    logger: {
      info: (fields, message) => void lines.push({ level: 'info', fields, message }),
      warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    },
    run: () =>
      new Promise<RunReport | undefined>((resolve, reject) => runs.push({ end: resolve, fail: reject })),
  };
  return { declared, lines, runs };
}

describe('a periodic job (PeriodicJobs)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs at bootstrap, then every interval through the scheduler, under its name', async () => {
    const { jobs, intervals, iterationsRun } = skeleton();
    const cleanup = job();
    jobs.add(cleanup.declared);
    expect(cleanup.runs).toHaveLength(0);

    jobs.onApplicationBootstrap();
    expect(cleanup.runs).toHaveLength(1);
    expect([...intervals.keys()]).toEqual(['keys-cleanup']);
    cleanup.runs[0].end();
    await jest.advanceTimersByTimeAsync(INTERVAL_MS - 1);
    expect(cleanup.runs).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(cleanup.runs).toHaveLength(2);
    expect(iterationsRun).toEqual([
      ['keys-cleanup', INTERVAL_MS],
      ['keys-cleanup', INTERVAL_MS],
    ]);

    // What the scheduler does at shutdown: no run after.
    clearInterval(intervals.get('keys-cleanup'));
    cleanup.runs[1].end();
    await jest.advanceTimersByTimeAsync(3 * INTERVAL_MS);
    expect(cleanup.runs).toHaveLength(2);
  });

  it('skips the ticks that come while a run is in progress, which the job log names stalled meanwhile', async () => {
    const { jobs, intervals, iterations } = skeleton();
    const cleanup = job();
    jobs.add(cleanup.declared);
    jobs.onApplicationBootstrap();

    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(iterations.stalled()).toEqual([]);
    await jest.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    expect(cleanup.runs).toHaveLength(1);
    expect(iterations.stalled()).toEqual(['keys-cleanup']);

    cleanup.runs[0].end();
    await jest.advanceTimersByTimeAsync(0);
    expect(iterations.stalled()).toEqual([]);
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(cleanup.runs).toHaveLength(2);
    clearInterval(intervals.get('keys-cleanup'));
  });

  it("writes the run's report when it did something, nothing when it did not", async () => {
    const { jobs, intervals } = skeleton();
    const cleanup = job();
    jobs.add(cleanup.declared);
    jobs.onApplicationBootstrap();

    cleanup.runs[0].end();
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    cleanup.runs[1].end({ fields: { event: 'keys_expired', deleted: 3 }, message: 'Expired keys deleted' });
    await jest.advanceTimersByTimeAsync(0);
    expect(cleanup.lines).toEqual([
      { level: 'info', fields: { event: 'keys_expired', deleted: 3 }, message: 'Expired keys deleted' },
    ]);
    clearInterval(intervals.get('keys-cleanup'));
  });

  it('logs one warning when runs start failing and one line when a run succeeds again', async () => {
    const { jobs, intervals } = skeleton();
    const cleanup = job();
    jobs.add(cleanup.declared);
    jobs.onApplicationBootstrap();

    cleanup.runs[0].fail(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    cleanup.runs[1].fail(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(cleanup.lines).toEqual([
      {
        level: 'warn',
        fields: { event: 'outage_started', cause: 'connect ECONNREFUSED 127.0.0.1:5432' },
        message:
          'Deleting expired keys is failing; retrying with backoff, and logging again once it recovers',
      },
    ]);

    cleanup.runs[2].end();
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    cleanup.runs[3].end();
    await jest.advanceTimersByTimeAsync(0);
    expect(cleanup.lines.slice(1)).toEqual([
      {
        level: 'info',
        fields: { event: 'outage_ended', durationMs: 2 * INTERVAL_MS },
        message: 'Deleting expired keys has recovered',
      },
    ]);
    clearInterval(intervals.get('keys-cleanup'));
  });

  it('runs each job on its own: one in progress holds back no other', async () => {
    const { jobs, intervals } = skeleton();
    const slow = job('slow');
    const quick = job('quick');
    jobs.add(slow.declared);
    jobs.add(quick.declared);
    jobs.onApplicationBootstrap();

    quick.runs[0].end();
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    expect([slow.runs.length, quick.runs.length]).toEqual([1, 2]);
    for (const interval of intervals.values()) clearInterval(interval);
  });

  it('runs nothing where SERVICE_ROLE does not run the periodic jobs (api)', async () => {
    const { jobs, intervals, iterationsRun } = skeleton(false);
    const cleanup = job();
    jobs.add(cleanup.declared);
    jobs.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(3 * INTERVAL_MS);
    expect([cleanup.runs.length, intervals.size, iterationsRun.length]).toEqual([0, 0, 0]);
  });
});

describe('inBatches', () => {
  it('runs batches until one does fewer than a full batch, and counts what they did', async () => {
    const sizes = [3, 3, 1, 3];
    const batch = jest.fn(() => Promise.resolve(sizes.shift()!));
    expect(await inBatches(batch, 3, Date.now() + 60_000)).toBe(7);
    expect(batch).toHaveBeenCalledTimes(3);
  });

  it('stops after the batch in progress once its time is up, leaving the rest to the next run', async () => {
    let now = 1_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const batch = jest.fn(() => {
        now += 400;
        return Promise.resolve(3);
      });
      expect(await inBatches(batch, 3, 2_000)).toBe(9);
      expect(batch).toHaveBeenCalledTimes(3);
    } finally {
      clock.mockRestore();
    }
  });
});
