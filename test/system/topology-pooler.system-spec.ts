import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import request from 'supertest';
import { runCli } from '../harness/cli';
import { Fixtures, orderBody } from '../harness/factories';
import { runNode } from '../harness/run-node';
import { missingForTopology, topologyScript } from '../harness/topology';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const MIGRATE = join(ROOT, 'dist', 'platform', 'database', 'migrate.js');
const missing = missingForTopology('test/system/topology-pooler.system-spec.ts');

/** Every instance through PgBouncer in transaction mode, on ports of its own (not topology.system-spec's). */
const TOPOLOGY_ENV = {
  TOPOLOGY_POOLED: '1',
  TOPOLOGY_DIR: join(tmpdir(), `roa-topology-pooler-spec-${process.pid}`),
  TOPOLOGY_PRIMARY_PORT: '21432',
  TOPOLOGY_POSTGRES_PORT: '21430',
  TOPOLOGY_REPLICA_PORT: '21433',
  TOPOLOGY_PGBOUNCER_PORT: '21434',
  TOPOLOGY_HAPROXY_PORT: '21480',
  TOPOLOGY_HAPROXY_STATS_PORT: '21484',
  TOPOLOGY_API1_PORT: '21481',
  TOPOLOGY_API2_PORT: '21482',
  TOPOLOGY_WORKER_PORT: '21483',
  TOPOLOGY_METRICS_BASE_PORT: '21464',
};
/** A port for the instances this spec starts itself. */
const EXTRA_PORT = 21490;

const { run: topology, readEnv: readTopologyEnv } = topologyScript(TOPOLOGY_ENV, 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(missing.length === 0 ? describe : describe.skip)(
  'every instance behind PgBouncer in transaction mode',
  () => {
    let env: Record<string, string>;
    let primary: Pool;
    let fixtures: Fixtures;
    let adminToken: string;
    const api1 = `http://127.0.0.1:${TOPOLOGY_ENV.TOPOLOGY_API1_PORT}`;
    const api2 = `http://127.0.0.1:${TOPOLOGY_ENV.TOPOLOGY_API2_PORT}`;

    /** The service's own environment through the pooler, for the processes this spec starts. */
    const pooledEnv = () => ({
      NODE_ENV: 'production',
      DATABASE_URL: env.POOLED_URL,
      DATABASE_DIRECT_URL: env.PRIMARY_URL,
      DEVICE_CREDENTIALS_KEY: env.DEVICE_CREDENTIALS_KEY,
      METRICS_PORT: '0',
    });

    /** Session advisory locks held on the primary by anyone (none of this spec's work leaves one). */
    const advisoryLocks = async () =>
      Number(
        (await primary.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory'"))
          .rows[0].n,
      );

    /**
     * Places and reads orders through HAProxy until `stop` says so; resolves with every status seen. Each of the
     * four workers takes a new partner token every 25 orders, so no token meets the rate limit (60 a minute).
     */
    async function load(stop: (statuses: number[]) => boolean): Promise<number[]> {
      const companyId = await fixtures.company();
      const product = await fixtures.product();
      const statuses: number[] = [];
      const worker = async () => {
        while (!stop(statuses)) {
          const { token } = await fixtures.partnerOf(companyId);
          for (let order = 0; order < 25 && !stop(statuses); order += 1) {
            const placed = await request(env.API_URL)
              .post('/api/v2/order')
              .set('Authorization', `Bearer ${token}`)
              .send(orderBody(product.id));
            statuses.push(placed.status);
            const id = (placed.body as { orders?: { order_id: string }[] }).orders?.[0]?.order_id;
            if (!id) continue;
            const read = await request(env.API_URL)
              .get(`/api/v2/order/${id}`)
              .set('Authorization', `Bearer ${token}`);
            statuses.push(read.status);
          }
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return statuses;
    }

    beforeAll(async () => {
      await topology('up');
      env = readTopologyEnv();
      primary = new Pool({ connectionString: env.PRIMARY_URL, max: 2 });
      const admin = await runCli(
        env.POOLED_URL,
        ['tokens:create', '--role', 'admin', '--user-name', 'pooler-admin'],
        { DATABASE_DIRECT_URL: env.PRIMARY_URL, DEVICE_CREDENTIALS_KEY: env.DEVICE_CREDENTIALS_KEY },
      );
      if (typeof admin.json?.token !== 'string') throw new Error(`tokens:create failed: ${admin.stderr}`);
      adminToken = admin.json.token;
      fixtures = new Fixtures(env.API_URL, adminToken);
    }, 150_000);

    afterAll(async () => {
      await primary?.end();
      if (existsSync(TOPOLOGY_ENV.TOPOLOGY_DIR)) await topology('down');
    }, 60_000);

    it('has the timeouts in force through the pooler, as the role sets them', async () => {
      const pooled = new Pool({ connectionString: env.POOLED_URL, max: 1 });
      try {
        const { rows } = await pooled.query<{ statement: string; idle: string }>(
          "SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle",
        );
        expect(rows).toEqual([{ statement: '10s', idle: '10s' }]);
      } finally {
        await pooled.end();
      }
    });

    it('answers placements and reads through the pooler with no 500, the order read keeping its plan in a function', async () => {
      const statuses = await load((seen) => seen.length >= 200);
      expect(statuses.length).toBeGreaterThanOrEqual(200);
      expect(statuses.filter((status) => status !== 201 && status !== 200)).toEqual([]);
      // Named statements are off through the pooler: GET /order/{id} ran as the function, made once.
      const { rows } = await primary.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_proc WHERE proname LIKE 'prepared_order_text_of_company_%'",
      );
      expect(rows).toEqual([{ n: '1' }]);
    }, 60_000);

    it('refuses a revoked token on every instance within one second (LISTEN on the direct session)', async () => {
      const partner = await fixtures.partner();
      const asPartner = (url: string) =>
        request(url).get('/api/v2/product').set('Authorization', `Bearer ${partner.token}`);
      // Both instances have the token cached (TOKEN_CACHE_MS: 5 s) when it is revoked.
      for (const url of [api1, api2]) await asPartner(url).expect(200);
      await request(api1)
        .delete(`/api/v2/admin/tokens/${partner.tokenId}`)
        .set('Authorization', `Bearer ${adminToken}`)
        .expect(200);
      const revokedAt = Date.now();
      const refusedAfter = await Promise.all(
        [api1, api2].map(async (url) => {
          while ((await asPartner(url)).status !== 401) {
            if (Date.now() - revokedAt > 5_000) break;
            await sleep(20);
          }
          return Date.now() - revokedAt;
        }),
      );
      for (const elapsed of refusedAfter) expect(elapsed).toBeLessThan(1_000);
    }, 30_000);

    it('leaves no advisory lock held after migrations run repeatedly under load through the pooler', async () => {
      let stop = false;
      const running = load(() => stop);
      // Three at a time, so that they also wait for each other's lock.
      const results = [];
      for (let round = 0; round < 3; round += 1)
        results.push(...(await Promise.all([0, 1, 2].map(() => runNode(MIGRATE, ['run'], pooledEnv())))));
      // The service's own start applies pending migrations too, under the same lock: two instances at once.
      const starts = await Promise.all(
        [0, 1].map(async (index) => {
          const child = spawn(process.execPath, [MAIN], {
            env: { PATH: process.env.PATH, ...pooledEnv(), PORT: String(EXTRA_PORT + index) },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let output = '';
          child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
          const deadline = Date.now() + 60_000;
          while (!output.includes('"event":"listening"') && child.exitCode === null && Date.now() < deadline)
            await sleep(100);
          const listened = output.includes('"event":"listening"');
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('exit', resolve));
          return { listened, output };
        }),
      );
      stop = true;
      const statuses = await running;
      expect(results.map((result) => [result.code, result.stdout.trim()])).toEqual(
        Array(9).fill([0, '{"applied":[]}']),
      );
      expect(starts.filter((start) => !start.listened).map((start) => start.output)).toEqual([]);
      expect(statuses.filter((status) => status !== 201 && status !== 200)).toEqual([]);
      expect(await advisoryLocks()).toBe(0);
    }, 150_000);

    it('refuses to start, in one line naming DATABASE_URL, when the timeouts are not in force through the pooler', async () => {
      await primary.query('ALTER ROLE orders RESET statement_timeout');
      await primary.query('ALTER ROLE orders RESET idle_in_transaction_session_timeout');
      // The pooler's server connections keep the settings they started with: new ones start without them.
      await primary.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'orders' AND pid <> pg_backend_pid()",
      );
      // A service that starts anyway is stopped after 30 s, and the test fails on its exit code.
      const child = spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH, ...pooledEnv(), PORT: String(EXTRA_PORT) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const stopper = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(stopper);
      const refused = { code, stderr };
      expect(refused.code).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]) as { variable: string; msg: string };
      expect(line.variable).toBe('DATABASE_URL');
      expect(line.msg).toMatch(
        /^Timeouts are not in force through DATABASE_URL .*statement_timeout is 0 \(none\), idle_in_transaction_session_timeout is 0 \(none\).*ALTER ROLE "orders" SET statement_timeout = 10000/,
      );
      expect(refused.stderr).not.toContain(env.POOLED_URL.split(':')[2].split('@')[0]);
    }, 60_000);
  },
);
