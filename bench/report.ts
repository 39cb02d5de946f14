import { BARE_HELLO, HELLO, PLAIN_ONE, PLAIN_PAGE } from './scenarios';

export interface Measurement {
  scenario: string;
  target: 'app' | 'plain' | 'bare';
  method: string;
  orders: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyAverageMs: number;
  errors: number;
  non2xx: number;
  peakRssMb: number;
  /** The server's CPU time (user + system) per request: the cost of a request, independent of the load. */
  cpuMsPerRequest: number;
  /** requests/s divided by the requests/s of the app's hello measured just before, on the same app. */
  ratioToHello: number;
  /** The same, divided by the bare NestJS hello's ratio to its adjacent app hello (the framework's floor). */
  ratioToBareHello?: number;
  /** The same, divided by the plain server's ratio on the same route (GET /order/{id} for non-list routes). */
  ratioToPlain?: number;
  helloRequestsPerSecond?: number;
  loadAverage: number[];
}

export interface TargetResult {
  target: string;
  measured: string;
  pass: boolean;
  /**
   * The same ratio in CPU time per request of the server processes (reference / scenario): what it would be
   * if the server's own CPU were the only limit, whatever else loads the machine. PostgreSQL's time is not in it.
   */
  byServerCpu?: number;
}

export const isHello = (scenario: string) => scenario === HELLO;

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The plain server's counterpart of a scenario: its page for every order list, its single order otherwise. */
const plainCounterpart = (scenario: string) =>
  scenario.startsWith('GET /order?') || scenario.includes('page 1') ? PLAIN_PAGE : PLAIN_ONE;

/**
 * Every ratio goes through the app hello measured right before each scenario, so that the machine's load
 * between two measurements cancels: scenario / bare = (scenario / hello) / (bare / hello).
 */
export function withReferenceRatios(rows: Measurement[]): Measurement[] {
  const ratioOf = (scenario: string) => rows.find((row) => row.scenario === scenario)?.ratioToHello;
  const bare = ratioOf(BARE_HELLO);
  return rows.map((row) => {
    const plain = ratioOf(plainCounterpart(row.scenario));
    return {
      ...row,
      ratioToBareHello: bare ? round(row.ratioToHello / bare) : undefined,
      ratioToPlain:
        plain && row.target === 'app' && !isHello(row.scenario) ? round(row.ratioToHello / plain) : undefined,
    };
  });
}

/** The targets of issue 15, from one run's measurements on the large database. */
export function targets(rows: Measurement[]): TargetResult[] {
  const row = (scenario: string) => rows.find((measured) => measured.scenario === scenario);
  const results: TargetResult[] = [];
  const atLeast = (target: string, scenario: string, reference: string, threshold: number) => {
    const measured = row(scenario);
    const base = row(reference);
    if (!measured || !base) return;
    const value = measured.ratioToHello / base.ratioToHello;
    results.push({
      target,
      measured: String(round(value, 2)),
      pass: value >= threshold,
      byServerCpu: round(base.cpuMsPerRequest / Math.max(0.001, measured.cpuMsPerRequest), 2),
    });
  };
  atLeast('app hello ≥ 0.6 × bare NestJS hello', HELLO, BARE_HELLO, 0.6);
  atLeast('GET /order/{id} ≥ 0.6 × plain', 'GET /order/{id}', PLAIN_ONE, 0.6);
  atLeast('GET /order page 1 ≥ 0.6 × plain page', 'GET /order page 1', PLAIN_PAGE, 0.6);
  atLeast('GET /product ≥ 0.8 × app hello', 'GET /product', HELLO, 0.8);
  atLeast('POST /order ≥ 0.25 × app hello', 'POST /order', HELLO, 0.25);
  const reads = rows.filter((measured) => measured.target === 'app' && measured.method === 'GET');
  const tails = reads.map((read) => ({ read, tail: read.latencyP99Ms / Math.max(1, read.latencyP50Ms) }));
  const worst = tails.reduce((a, b) => (b.tail > a.tail ? b : a), tails[0]);
  if (worst) {
    results.push({
      target: 'p99 ≤ 4 × p50 on every read',
      measured: `worst ${round(worst.tail, 1)}× (${worst.read.orders} ${worst.read.scenario})`,
      pass: worst.tail <= 4,
    });
  }
  const app = rows.filter((measured) => measured.target === 'app');
  const peak = Math.max(...app.map((measured) => measured.peakRssMb));
  results.push({ target: 'peak RSS < 200 MB (app)', measured: `${peak} MB`, pass: peak < 200 });
  const errors = rows.reduce((sum, measured) => sum + measured.errors + measured.non2xx, 0);
  results.push({ target: 'zero errors', measured: String(errors), pass: errors === 0 });
  return results;
}

/** The run as Markdown tables, ready for docs/performance.md. */
export function markdown(rows: Measurement[], results: TargetResult[]): string {
  const cell = (value: number | undefined) => (value === undefined ? '' : String(round(value, 2)));
  const lines = [
    '| orders | scenario | req/s | × app hello | × bare NestJS hello | × plain | CPU ms/req | p50 ms | p99 ms | errors | peak RSS MB | load (1 min) |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.orders.toLocaleString('en')} | ${row.scenario} | ${row.requestsPerSecond} | ${cell(row.ratioToHello)} | ${cell(row.ratioToBareHello)} | ${cell(row.ratioToPlain)} | ${row.cpuMsPerRequest} | ${row.latencyP50Ms} | ${row.latencyP99Ms} | ${row.errors + row.non2xx} | ${row.peakRssMb} | ${row.loadAverage[0]} |`,
    ),
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...results.map(
      (result) => `| ${result.target} | ${result.measured} | ${result.pass ? 'met' : '**missed**'} |`,
    ),
  ];
  return lines.join('\n');
}
