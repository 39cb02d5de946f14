import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import request from 'supertest';
import { runCli } from '../harness/cli';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody } from '../harness/factories';
import { missingForTopology, topologyScript } from '../harness/topology';

const missing = missingForTopology('test/system/topology.system-spec.ts');

/** Ports of their own (not the script's defaults), so a topology started by hand does not collide. */
const TOPOLOGY_ENV = {
  TOPOLOGY_DIR: join(tmpdir(), `roa-topology-spec-${process.pid}`),
  TOPOLOGY_PRIMARY_PORT: '25432',
  TOPOLOGY_POSTGRES_PORT: '25430',
  TOPOLOGY_REPLICA_PORT: '25433',
  TOPOLOGY_PGBOUNCER_PORT: '26432',
  TOPOLOGY_HAPROXY_PORT: '28080',
  TOPOLOGY_HAPROXY_STATS_PORT: '28404',
  TOPOLOGY_API1_PORT: '28081',
  TOPOLOGY_API2_PORT: '28082',
  TOPOLOGY_WORKER_PORT: '28083',
  TOPOLOGY_METRICS_BASE_PORT: '29464',
};

const { run: topology, readEnv: readTopologyEnv } = topologyScript(TOPOLOGY_ENV, 60_000);

/** Runs, and is not a zombie waiting for init to reap it (the state is the field after the name's ")"). */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .startsWith('Z');
  } catch {
    return false;
  }
}

/** The pid of every process the topology started: the pid files and the two postmasters. */
function topologyPids(): number[] {
  const dir = TOPOLOGY_ENV.TOPOLOGY_DIR;
  return [
    ...['api1', 'api2', 'worker', 'pgbouncer', 'haproxy'].map((name) => join(dir, 'run', `${name}.pid`)),
    join(dir, 'primary', 'postmaster.pid'),
    join(dir, 'replica', 'postmaster.pid'),
  ].map((file) => Number(readFileSync(file, 'utf8').split('\n')[0]));
}

(missing.length === 0 ? describe : describe.skip)('scripts/topology.sh: the topology on one machine', () => {
  let env: Record<string, string>;
  let replica: Pool;
  let fixtures: Fixtures;

  beforeAll(async () => {
    await topology('up');
    env = readTopologyEnv();
    replica = new Pool({ connectionString: env.REPLICA_URL, max: 1 });
    const admin = await runCli(
      env.PRIMARY_URL,
      ['tokens:create', '--role', 'admin', '--user-name', 'topology-admin'],
      { DEVICE_CREDENTIALS_KEY: env.DEVICE_CREDENTIALS_KEY },
    );
    if (typeof admin.json?.token !== 'string') throw new Error(`tokens:create failed: ${admin.stderr}`);
    fixtures = new Fixtures(env.API_URL, admin.json.token);
  }, 90_000);

  afterAll(async () => {
    if (replica && !replica.ended) await replica.end();
    if (existsSync(TOPOLOGY_ENV.TOPOLOGY_DIR)) await topology('down');
  }, 60_000);

  it('status shows every process running, the replica streaming and both API instances up in HAProxy', async () => {
    const status = await topology('status');
    for (const name of ['primary', 'replica', 'pgbouncer', 'api1', 'api2', 'worker', 'haproxy'])
      expect(status).toMatch(new RegExp(`^${name} +running \\(pid \\d+\\)$`, 'm'));
    expect(status).toMatch(/^replication walreceiver streaming /m);
    expect(status).toMatch(/^api1 UP$/m);
    expect(status).toMatch(/^api2 UP$/m);
  });

  it('HAProxy answers /health/ready', async () => {
    await request(env.API_URL).get('/health/ready').expect(200);
  });

  it('places an order through HAProxy, and the order written on the primary appears on the replica', async () => {
    const partner = await fixtures.partner();
    const product = await fixtures.product();
    const placed = await request(env.API_URL)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partner.token}`)
      .send(orderBody(product.id))
      .expect(201);
    const orderId = (placed.body as { orders: { order_id: string }[] }).orders[0].order_id;
    const onReplica = async () =>
      (await replica.query('SELECT 1 FROM orders WHERE id = $1', [orderId])).rowCount === 1;
    await eventually(onReplica, () => `order ${orderId} did not reach the replica`, 10_000);
    expect((await replica.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows).toEqual(
      [{ standby: true }],
    );
  });

  it('serves through the other API instance when one is killed with SIGKILL', async () => {
    const api1 = Number(readFileSync(join(TOPOLOGY_ENV.TOPOLOGY_DIR, 'run', 'api1.pid'), 'utf8'));
    process.kill(api1, 'SIGKILL');
    for (let i = 0; i < 6; i += 1) await request(env.API_URL).get('/health/ready').expect(200);
    await eventually(
      async () => /^api1 DOWN$/m.test(await topology('status')),
      () => 'HAProxy did not mark api1 DOWN',
      10_000,
    );
    const partner = await fixtures.partner();
    await request(env.API_URL)
      .get('/api/v2/product')
      .set('Authorization', `Bearer ${partner.token}`)
      .expect(200);
  });

  it('down stops every process and removes the state folder', async () => {
    const pids = topologyPids();
    await replica.end();
    await topology('down');
    expect(pids.filter(running)).toEqual([]);
    expect(existsSync(TOPOLOGY_ENV.TOPOLOGY_DIR)).toBe(false);
  });
});
