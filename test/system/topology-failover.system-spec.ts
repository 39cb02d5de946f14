import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { runCli } from '../harness/cli';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { missingForTopology, PG_BIN, topologyScript } from '../harness/topology';

const missing = missingForTopology('test/system/topology-failover.system-spec.ts');

/** Ports of their own, so this spec runs beside test/system/topology.system-spec.ts and a topology started by hand. */
const TOPOLOGY_ENV = {
  TOPOLOGY_DIR: join(tmpdir(), `roa-topology-failover-${process.pid}`),
  TOPOLOGY_PRIMARY_PORT: '20432',
  TOPOLOGY_POSTGRES_PORT: '20430',
  TOPOLOGY_REPLICA_PORT: '20433',
  TOPOLOGY_PGBOUNCER_PORT: '20434',
  TOPOLOGY_HAPROXY_PORT: '20480',
  TOPOLOGY_HAPROXY_STATS_PORT: '20484',
  TOPOLOGY_API1_PORT: '20481',
  TOPOLOGY_API2_PORT: '20482',
  TOPOLOGY_WORKER_PORT: '20483',
  TOPOLOGY_METRICS_BASE_PORT: '20464',
  // One partner token places hundreds of orders a minute here: the rate limit is not what is tested.
  TOPOLOGY_RATE_LIMIT_PER_MINUTE: '1000000',
};
const STATE = TOPOLOGY_ENV.TOPOLOGY_DIR;
/** No request may take longer than this: past it, the service hangs instead of answering 503. */
const REQUEST_BOUND_MS = 15_000;

const { run: topology, readEnv: readTopologyEnv } = topologyScript(TOPOLOGY_ENV, 90_000);

/** pg_ctl on one of the topology's servers, as the postgres user when the spec runs as root (as the script does). */
async function pgCtl(dataDir: 'primary' | 'replica', ...args: string[]): Promise<void> {
  const command = [`${PG_BIN}/pg_ctl`, '-D', join(STATE, dataDir), '-w', '-t', '30', ...args];
  const [file, argv] =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', ...command]]
      : [command[0], command.slice(1)];
  await promisify(execFile)(file, argv, { timeout: 40_000 });
}

const pidOf = (name: string) => Number(readFileSync(join(STATE, 'run', `${name}.pid`), 'utf8'));

/** One client's placement under one Idempotency-Key (every try sends the same body): its answers, try by try. */
interface KeyedPlacement {
  key: string;
  email: string;
  body: string;
  statuses: number[];
  orderId?: number;
}

(missing.length === 0 ? describe : describe.skip)(
  'the topology under failure: kill -9, primary failover',
  () => {
    let env: Record<string, string>;
    let fixtures: Fixtures;
    let partner: Partner;
    let productId: number;
    let primary: Pool;
    let finished = false;

    beforeAll(async () => {
      await topology('up');
      env = readTopologyEnv();
      const admin = await runCli(
        env.PRIMARY_URL,
        ['tokens:create', '--role', 'admin', '--user-name', 'failover-admin'],
        { DEVICE_CREDENTIALS_KEY: env.DEVICE_CREDENTIALS_KEY },
      );
      if (typeof admin.json?.token !== 'string') throw new Error(`tokens:create failed: ${admin.stderr}`);
      fixtures = new Fixtures(env.API_URL, admin.json.token);
      partner = await fixtures.partner();
      productId = (await fixtures.product()).id;
      primary = new Pool({ connectionString: env.PRIMARY_URL, max: 2 });
      // Its idle connections die with the first primary: the next query opens one to the promoted replica.
      primary.on('error', () => undefined);
    }, 120_000);

    afterAll(async () => {
      finished = true;
      await primary?.end();
      if (existsSync(STATE)) await topology('down');
    }, 60_000);

    /**
     * One try: the status, 0 when the connection broke (the instance killed mid-request). With fetch, not
     * supertest: HAProxy's own 503 (no instance ready) is no answer of the service's OpenAPI document.
     */
    async function placeOnce(placement: KeyedPlacement): Promise<number> {
      let response: Response;
      try {
        response = await fetch(`${env.API_URL}/api/v2/order`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${partner.token}`,
            'idempotency-key': placement.key,
            'content-type': 'application/json',
          },
          body: placement.body,
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
      } catch (error) {
        if ((error as Error).name === 'TimeoutError')
          throw new Error(`A placement hung past ${REQUEST_BOUND_MS} ms`, { cause: error });
        return 0;
      }
      const body = await response.text();
      if (response.status === 201)
        placement.orderId = Number(
          (JSON.parse(body) as { orders: { order_id: string }[] }).orders[0].order_id,
        );
      return response.status;
    }

    /** A GET that must answer within REQUEST_BOUND_MS (fetch: HAProxy's own 503 is not the service's). */
    async function get(url: string, token?: string): Promise<{ status: number; body: string }> {
      const response = await fetch(url, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(REQUEST_BOUND_MS),
      });
      return { status: response.status, body: await response.text() };
    }

    const newPlacement = (): KeyedPlacement => {
      const email = `${randomUUID()}@example.com`;
      return {
        key: randomUUID(),
        email,
        body: JSON.stringify(orderBody(productId, { email })),
        statuses: [],
      };
    };

    /** A client that places order after order, each retried with its key until acknowledged, until `stop()`. */
    function clients(count: number) {
      const placements: KeyedPlacement[] = [];
      let stopping = false;
      const client = async () => {
        while (!stopping && !finished) {
          const placement = newPlacement();
          placements.push(placement);
          // Until acknowledged; a failed test's clients give up when the spec ends (no client outlives it).
          while (!finished) {
            const status = await placeOnce(placement);
            placement.statuses.push(status);
            if (status === 201) break;
            await sleep(100);
          }
        }
      };
      const running = Promise.all(Array.from({ length: count }, client));
      return {
        placements,
        acknowledged: () => placements.filter((placement) => placement.orderId !== undefined).length,
        stop: async () => {
          stopping = true;
          await running;
        },
      };
    }

    /** Every key was placed exactly once, and every acknowledged order is on the (current) primary. */
    async function expectOneOrderPerKey(placements: KeyedPlacement[]): Promise<void> {
      const { rows } = await primary.query<{ email: string; ids: number[] }>(
        'SELECT email, array_agg(id ORDER BY id) AS ids FROM orders WHERE email = ANY($1) GROUP BY email',
        [placements.map((placement) => placement.email)],
      );
      const ordersOf = new Map(rows.map((row) => [row.email, row.ids.map(Number)]));
      const wrong = placements.filter(
        (placement) => JSON.stringify(ordersOf.get(placement.email)) !== JSON.stringify([placement.orderId]),
      );
      expect(wrong.map((placement) => ({ ...placement, orders: ordersOf.get(placement.email) }))).toEqual([]);
    }

    it('kill -9 of an API instance during keyed placements leaves exactly one order per key', async () => {
      const load = clients(12);
      await eventually(
        () => load.acknowledged() >= 20,
        () => 'No placements went through',
      );
      const api1 = pidOf('api1');
      process.kill(api1, 'SIGKILL');
      const acknowledgedAtKill = load.acknowledged();
      await eventually(
        () => load.acknowledged() >= acknowledgedAtKill + 30,
        () => 'Placements did not go on through api2',
      );
      await load.stop();

      await expectOneOrderPerKey(load.placements);
      const statuses = new Set(load.placements.flatMap((placement) => placement.statuses));
      // 0: the connection to api1 broke mid-request; 502/503: HAProxy had nobody to send it to; 409: the key's
      // first try still held its lock. Never a 500, and never a second order.
      expect([...statuses].filter((status) => ![0, 201, 409, 502, 503].includes(status))).toEqual([]);
      expect(load.placements.every((placement) => placement.orderId !== undefined)).toBe(true);
    }, 90_000);

    it('promoting the replica behind the address that follows the primary: 503s, then recovery, nothing lost', async () => {
      const api2 = env.API_URL.replace(env.HAPROXY_PORT, env.API2_PORT);
      const known = newPlacement();
      expect(await placeOnce(known)).toBe(201);
      const instances = [pidOf('api2'), pidOf('worker')];
      const load = clients(6);
      await eventually(
        () => load.acknowledged() >= 10,
        () => 'No placements went through',
      );

      // A clean stop: the primary sends every WAL record to the replica before it exits, so what it acknowledged
      // is on the replica (a crash needs synchronous replication for that: docs/scaling.md).
      await pgCtl('primary', '-m', 'fast', 'stop');
      const gap = { ready: 0, api: 0, balancer: 0 };
      await eventually(
        async () => {
          const ready = await get(`${api2}/health/ready`);
          const read = await get(`${api2}/api/v2/order/${known.orderId}`, partner.token);
          expect([ready.status, read.status].every((status) => status === 200 || status === 503)).toBe(true);
          if (ready.status === 503) gap.ready += 1;
          if (read.status === 503) {
            expect(JSON.parse(read.body)).toEqual({ message: 'Service unavailable.' });
            gap.api += 1;
          }
          if ((await get(`${env.API_URL}/health/ready`)).status === 503) gap.balancer += 1;
          return gap.ready > 0 && gap.api > 0 && gap.balancer > 0;
        },
        () => `No 503 during the gap: ${JSON.stringify(gap)}`,
        20_000,
      );

      await pgCtl('replica', 'promote');
      await eventually(
        async () => (await get(`${api2}/health/ready`)).status === 200,
        () => 'api2 did not recover after the promotion',
        30_000,
      );
      await eventually(
        async () => (await get(`${env.API_URL}/health/ready`)).status === 200,
        () => 'HAProxy did not find an API instance ready after the promotion',
        30_000,
      );
      const acknowledgedAtRecovery = load.acknowledged();
      await eventually(
        () => load.acknowledged() >= acknowledgedAtRecovery + 10,
        () => 'Placements did not go on after the promotion',
        30_000,
      );
      await load.stop();

      expect([pidOf('api2'), pidOf('worker')]).toEqual(instances);
      expect(
        (await primary.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows,
      ).toEqual([{ standby: false }]);
      expect(
        (await primary.query<{ port: number }>("SELECT current_setting('port')::int AS port")).rows[0].port,
      ).toBe(Number(env.REPLICA_PORT));
      await expectOneOrderPerKey([known, ...load.placements]);
      const statuses = new Set(load.placements.flatMap((placement) => placement.statuses));
      expect([...statuses].filter((status) => ![201, 409, 503].includes(status))).toEqual([]);
    }, 120_000);
  },
);
