import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';
import { appEnvironment, type ServerProcess, startServer } from './processes';
import { prepareSamples } from './scenarios';
import { seedBenchDatabase } from './seed';

/**
 * The request log's cost (CONTRACT §4.12: the service answers as fast with it as without): the same build run
 * twice on the same seeded database, REQUEST_LOG=true and REQUEST_LOG=false, measured in turn, round after round
 * (the machine is shared: alternating spreads its noise over both), on hello (GET /health/live, which no company
 * token calls, so never logged) and GET /order/{id} with a partner token (every request logged). Prints the
 * median of the rounds per scenario and setting, and the rows the log holds after the run.
 *
 *   DATABASE_URL=postgres://... npm run bench:request-log -- --rounds 3 --duration 5 --connections 16
 *
 * `--control` runs both with the log on (the rows still say on and off): the difference two identical
 * instances show on this machine, the noise the real comparison is read against.
 */
const PORTS = { on: 4110, off: 4111 } as const;

interface Row {
  scenario: string;
  log: 'on' | 'off';
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  errors: number;
}

async function measure(
  server: ServerProcess,
  path: () => string,
  token: string | undefined,
  duration: number,
  connections: number,
) {
  const cpuBefore = server.cpuTimeMs();
  const result = await autocannon({
    url: server.baseUrl,
    connections,
    duration,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: path() }) }],
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPerRequest:
      Math.round(((server.cpuTimeMs() - cpuBefore) / Math.max(1, result.requests.total)) * 1000) / 1000,
    errors: result.errors + result.non2xx,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '100000' },
      companies: { type: 'string', default: '100' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      control: { type: 'boolean', default: false },
    },
  });
  const orders = Number(values.orders);
  const [rounds, duration, connections] = [values.rounds, values.duration, values.connections].map(Number);
  const bench = await openBenchServer();
  const servers: ServerProcess[] = [];
  try {
    if (!(await bench.exists(benchDatabaseName(orders)))) {
      console.log(`Seeding ${benchDatabaseName(orders)}...`);
      await seedBenchDatabase({ orders, companies: Number(values.companies) });
    }
    const copy = `${benchDatabaseName(orders)}_request_log`;
    await bench.clone(benchDatabaseName(orders), copy);
    const url = bench.urlOf(copy);
    const samples = await prepareSamples(url);
    const env = (log: 'on' | 'off') => ({
      ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY),
      METRICS_PORT: '0',
      REQUEST_LOG: log === 'on' || values.control ? 'true' : 'false',
    });
    const on = await startServer('log on', ['dist/main.js'], PORTS.on, env('on'), '/health/ready');
    servers.push(on);
    const off = await startServer('log off', ['dist/main.js'], PORTS.off, env('off'), '/health/ready');
    servers.push(off);
    const scenarios = [
      { name: 'hello: GET /health/live', path: () => '/health/live', token: undefined },
      {
        name: 'GET /order/{id}',
        path: () => `/api/v2/order/${samples.orderIds[Math.floor(Math.random() * samples.orderIds.length)]}`,
        token: samples.token,
      },
    ];
    const rows: Row[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      for (const scenario of scenarios) {
        // Which setting goes first alternates, so neither always runs on a warmer or a busier machine.
        const order =
          round % 2 === 1
            ? ([
                ['on', on],
                ['off', off],
              ] as const)
            : ([
                ['off', off],
                ['on', on],
              ] as const);
        for (const [log, server] of order) {
          const result = await measure(server, scenario.path, scenario.token, duration, connections);
          rows.push({ scenario: scenario.name, log, ...result });
          console.log(
            `round ${round}  ${scenario.name.padEnd(24)} log ${log.padEnd(3)} ${String(result.requestsPerSecond).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  CPU ${result.cpuMsPerRequest} ms/req  errors ${result.errors}`,
          );
        }
      }
    }
    console.log('\n| scenario | request log | req/s | p50 ms | p99 ms | CPU ms/req | errors |');
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const scenario of scenarios)
      for (const log of ['off', 'on'] as const) {
        const mine = rows.filter((row) => row.scenario === scenario.name && row.log === log);
        console.log(
          `| ${scenario.name} | ${log} | ${median(mine.map((row) => row.requestsPerSecond))} | ${median(mine.map((row) => row.p50))} | ${median(mine.map((row) => row.p99))} | ${median(mine.map((row) => row.cpuMsPerRequest))} | ${mine.reduce((sum, row) => sum + row.errors, 0)} |`,
        );
      }
    await Promise.all(servers.map((server) => server.stop()));
    servers.length = 0;
    const client = new Client({ connectionString: url });
    await client.connect();
    const logged = await client.query<{ n: string }>('SELECT count(*) AS n FROM request_log');
    await client.end();
    console.log(
      `\nrequest_log rows after the run (every GET /order/{id} with the log on): ${logged.rows[0].n}`,
    );
    await bench.drop(copy);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
