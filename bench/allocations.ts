import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_DEVICE_CREDENTIALS_KEY, benchDatabaseName, openBenchServer } from './bench-database';
import { appEnvironment, startServer } from './processes';
import { prepareSamples } from './scenarios';

/**
 * What one request allocates, and where: `npx tsx bench/allocations.ts --path /api/v2/product` (after
 * `npm run build` and `npm run bench:seed`). Runs the compiled app as the bench does, drives the path with
 * 32 connections, and samples every allocation (freed ones included) during the measured window; prints the
 * bytes allocated per request and the share of each package and function. `{id}` in the path is replaced by
 * one of the bench company's orders. Allocation, not time: the figures do not depend on the machine's load.
 */
const PORT = Number(process.env.BENCH_PORT ?? 4100) + 5;
const PROFILE = join(__dirname, 'results', 'profiles', 'allocations.heapprofile');

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const where = (url: string): string => {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  if (url.includes('/dist/')) return `app: ${url.slice(url.indexOf('/dist/') + 6)}`;
  return url ? url.replace(/^node:/, 'node: ') : '(V8 and native)';
};

function summarise(root: ProfileNode, requests: number): void {
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  const add = (map: Map<string, number>, key: string, bytes: number) =>
    map.set(key, (map.get(key) ?? 0) + bytes);
  const visit = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    total += node.selfSize;
    add(byPlace, where(url), node.selfSize);
    add(byFunction, `${functionName || '(anonymous)'} (${where(url)}:${lineNumber + 1})`, node.selfSize);
    node.children.forEach(visit);
  };
  visit(root);
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, bytes]) => `  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n');
  console.log(`${requests} requests, ${(total / requests / 1024).toFixed(1)} KB allocated per request`);
  console.log(`by package:\n${top(byPlace, 15)}\nby function:\n${top(byFunction, 25)}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      path: { type: 'string', default: '/api/v2/product' },
      duration: { type: 'string', default: '10' },
      orders: { type: 'string', default: '1000000' },
    },
  });
  const bench = await openBenchServer();
  const url = bench.urlOf(benchDatabaseName(Number(values.orders)));
  const samples = await prepareSamples(url);
  mkdirSync(join(__dirname, 'results', 'profiles'), { recursive: true });
  rmSync(PROFILE, { force: true });
  const app = await startServer(
    'app',
    ['--import', join(__dirname, 'allocation-sampler.mjs'), 'dist/main.js'],
    PORT,
    { ...appEnvironment(url, BENCH_DEVICE_CREDENTIALS_KEY), METRICS_PORT: '0', ALLOCATION_PROFILE: PROFILE },
    '/health/ready',
  );
  let next = 0;
  const drive = (seconds: number) =>
    autocannon({
      url: app.baseUrl,
      connections: 32,
      duration: seconds,
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: values.path.replace('{id}', String(samples.orderIds[next++ % samples.orderIds.length])),
            headers: { authorization: `Bearer ${samples.token}` },
          }),
        },
      ],
    });
  try {
    await drive(3);
    process.kill(app.pid, 'SIGUSR2');
    const measured = await drive(Number(values.duration));
    process.kill(app.pid, 'SIGUSR2');
    while (!existsSync(PROFILE) || readFileSync(PROFILE).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 200));
    if (measured.non2xx > 0) console.log(`${measured.non2xx} answers were not 2xx`);
    summarise(
      (JSON.parse(readFileSync(PROFILE, 'utf8')) as { head: ProfileNode }).head,
      measured.requests.total,
    );
  } finally {
    await app.stop();
    await bench.stop();
  }
}

void main();
