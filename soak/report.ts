/** What a soak run measured, bucketed by time window, and how it is summarised. */

export interface WindowStats {
  /** Seconds from the start of the run to the start of the window. */
  fromSeconds: number;
  requests: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface RssSample {
  seconds: number;
  rssMb: number;
}

export interface SoakReport {
  startedAt: string;
  target: string;
  options: { durationSeconds: number; rate: number; connections: number; windowSeconds: number };
  requests: number;
  /** Every answer by status, per route of the workload. */
  statusesByRoute: Record<string, Record<string, number>>;
  /** Answers outside 2xx, plus requests that got no answer (connection errors, timeouts). */
  errors: { byStatus: Record<string, number>; connectionErrors: number; timeouts: number; total: number };
  windows: WindowStats[];
  /** p50/p99 of the last full window minus the first: the latency drift over the run. */
  latencyDriftMs: { p50: number | null; p99: number | null };
  /** When the soak started the server itself, or was given its --pid (read from /proc/<pid>/status). */
  memory: {
    samples: RssSample[];
    firstMb: number;
    lastMb: number;
    maxMb: number;
    growthMb: number;
    /** From the end of the first window (warm-up: JIT, pools, caches) to the end. */
    growthAfterWarmupMb: number;
  } | null;
}

const round = (value: number) => Math.round(value * 10) / 10;

function percentile(sorted: number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]);
}

/** Latencies collected per window of `windowSeconds`, from the start of the run. */
export class LatencyWindows {
  private readonly latencies: number[][] = [];

  constructor(
    private readonly startedAt: number,
    private readonly windowSeconds: number,
  ) {}

  record(latencyMs: number, at = Date.now()): void {
    const index = Math.floor((at - this.startedAt) / 1000 / this.windowSeconds);
    (this.latencies[index] ??= []).push(latencyMs);
  }

  /** Every window that had requests; a last window shorter than the others is left out of the drift. */
  summary(durationSeconds: number): { windows: WindowStats[]; drift: SoakReport['latencyDriftMs'] } {
    const windows = Array.from(this.latencies, (values = [], index) => {
      const sorted = [...values].sort((a, b) => a - b);
      return {
        fromSeconds: index * this.windowSeconds,
        requests: sorted.length,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
      };
    });
    const full = windows.filter((window) => window.fromSeconds + this.windowSeconds <= durationSeconds);
    const [first, last] = [full[0], full[full.length - 1]];
    const diff = (a: number | null | undefined, b: number | null | undefined) =>
      a === null || a === undefined || b === null || b === undefined ? null : round(b - a);
    return { windows, drift: { p50: diff(first?.p50Ms, last?.p50Ms), p99: diff(first?.p99Ms, last?.p99Ms) } };
  }
}

export function memorySummary(samples: RssSample[], warmupSeconds: number): SoakReport['memory'] {
  if (samples.length === 0) return null;
  const first = samples[0].rssMb;
  const last = samples[samples.length - 1].rssMb;
  const afterWarmup = samples.find((sample) => sample.seconds >= warmupSeconds) ?? samples[0];
  return {
    samples,
    firstMb: first,
    lastMb: last,
    maxMb: Math.max(...samples.map((sample) => sample.rssMb)),
    growthMb: round(last - first),
    growthAfterWarmupMb: round(last - afterWarmup.rssMb),
  };
}

/** The human-readable lines printed at the end of a run. */
export function formatReport(report: SoakReport, file: string): string {
  const lines = [
    `soak against ${report.target}: ${report.options.durationSeconds} s at ${report.options.rate} req/s over ` +
      `${report.options.connections} connections`,
    `requests: ${report.requests}; errors: ${report.errors.total} ` +
      `(by status ${JSON.stringify(report.errors.byStatus)}, connection errors ${report.errors.connectionErrors}, ` +
      `timeouts ${report.errors.timeouts})`,
    'window  requests  p50 ms  p99 ms',
    ...report.windows.map(
      (window) =>
        `${String(window.fromSeconds).padStart(5)}s ${String(window.requests).padStart(9)} ` +
        `${String(window.p50Ms ?? '-').padStart(7)} ${String(window.p99Ms ?? '-').padStart(7)}`,
    ),
    `latency drift (last full window - first): p50 ${report.latencyDriftMs.p50} ms, p99 ${report.latencyDriftMs.p99} ms`,
  ];
  if (report.memory)
    lines.push(
      `server RSS: first ${report.memory.firstMb} MB, last ${report.memory.lastMb} MB, max ${report.memory.maxMb} MB; ` +
        `growth ${report.memory.growthMb} MB, after warm-up ${report.memory.growthAfterWarmupMb} MB`,
    );
  lines.push(`JSON: ${file}`);
  return lines.join('\n');
}
