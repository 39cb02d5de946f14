import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Pool } from 'pg';
import request from 'supertest';
import { asText } from '../harness/as-text';
import { runCli } from '../harness/cli';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { missingForTopology, PG_BIN, topologyScript } from '../harness/topology';
import { startWebhookReceiver, type WebhookReceiver } from '../harness/webhook-receiver';

interface Page<Item> {
  data: Item[];
}

/** The order ids of a list page. */
const orderIds = (body: unknown): number[] =>
  (body as Page<{ order_id: number }>).data.map((order) => order.order_id);

/**
 * Read replicas on a real streaming replica (scripts/topology.sh: every API instance has DATABASE_REPLICA_URL
 * set to the replica): with replay paused, every read-after-write a client can make sees its write; with replay
 * running, reads reach the replica (db_reads_total says so); a replica that stops costs no request. A webhook
 * receiver that reads the order it is told of, at once, sees it too.
 */

const root = process.getuid?.() === 0;
const missing = missingForTopology('test/system/topology-replica.system-spec.ts', ['runuser']);
if (missing.length === 0 && !root)
  console.log(
    'test/system/topology-replica.system-spec.ts skipped: needs root (it pauses the replica as the postgres user)',
  );

/** Ports of their own, apart from the script's defaults and the other topology specs' (jest may run them at once). */
const TOPOLOGY_ENV = {
  TOPOLOGY_DIR: join(tmpdir(), `roa-topology-replica-spec-${process.pid}`),
  TOPOLOGY_POSTGRES_PORT: '22430',
  TOPOLOGY_PRIMARY_PORT: '22432',
  TOPOLOGY_REPLICA_PORT: '22433',
  TOPOLOGY_PGBOUNCER_PORT: '22434',
  TOPOLOGY_HAPROXY_PORT: '22480',
  TOPOLOGY_HAPROXY_STATS_PORT: '22484',
  TOPOLOGY_API1_PORT: '22481',
  TOPOLOGY_API2_PORT: '22482',
  TOPOLOGY_WORKER_PORT: '22483',
  TOPOLOGY_METRICS_BASE_PORT: '22464',
  // The webhook receiver listens on 127.0.0.1.
  TOPOLOGY_WEBHOOK_ALLOW_PRIVATE: 'true',
};
const API_METRICS_PORTS = [22464, 22465];

const { run: topology, readEnv: readTopologyEnv } = topologyScript(TOPOLOGY_ENV, 90_000);

/** SQL as the replica's superuser (the postgres user, over the state folder's socket), as the script runs it. */
async function onReplicaAsSuperuser(sql: string): Promise<string> {
  const { stdout } = await promisify(execFile)('runuser', [
    '-u',
    'postgres',
    '--',
    join(PG_BIN, 'psql'),
    '-X',
    '-At',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    join(TOPOLOGY_ENV.TOPOLOGY_DIR, 'run'),
    '-p',
    TOPOLOGY_ENV.TOPOLOGY_REPLICA_PORT,
    '-d',
    'postgres',
    '-c',
    sql,
  ]);
  return stdout.trim();
}

/** db_reads_total{target, reason}, summed over both API instances. */
async function reads(target: string, reason: string): Promise<number> {
  let total = 0;
  for (const port of API_METRICS_PORTS) {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) });
    const line = (await response.text())
      .split('\n')
      .find((row) => row.startsWith(`db_reads_total{target="${target}",reason="${reason}"} `));
    total += line ? Number(line.split(' ')[1]) : 0;
  }
  return total;
}

(missing.length === 0 && root ? describe : describe.skip)('read replicas on a streaming replica', () => {
  let env: Record<string, string>;
  let primary: Pool;
  let replica: Pool;
  let fixtures: Fixtures;
  let admin: string;
  let partner: Partner;
  let logistics: string;
  let productId: number;

  const api = () => request(env.API_URL);
  const asPartner = (method: 'get' | 'post', path: string, token = partner.token) =>
    api()[method](path).set('Authorization', `Bearer ${token}`);
  const place = async (overrides: Record<string, unknown> = {}): Promise<number> => {
    const response = await asPartner('post', '/api/v2/order')
      .send(orderBody(productId, overrides))
      .expect(201);
    return Number(response.body.orders[0].order_id);
  };
  const getOrder = async (id: number) =>
    (await asPartner('get', `/api/v2/order/${id}`).expect(200)).body as Record<string, unknown>;
  /** Whether the replica has the order: it must not, while replay is paused, for the test to mean anything. */
  const onReplica = async (id: number) =>
    (await replica.query('SELECT 1 FROM orders WHERE id = $1', [id])).rowCount === 1;

  beforeAll(async () => {
    await topology('up');
    env = readTopologyEnv();
    primary = new Pool({ connectionString: env.PRIMARY_URL, max: 1 });
    replica = new Pool({ connectionString: env.REPLICA_URL, max: 1 });
    // The replica is stopped below: its idle connection's end is expected, not an error of the spec.
    replica.on('error', () => undefined);
    const cli = await runCli(
      env.PRIMARY_URL,
      ['tokens:create', '--role', 'admin', '--user-name', 'replica-admin'],
      {
        DEVICE_CREDENTIALS_KEY: env.DEVICE_CREDENTIALS_KEY,
      },
    );
    if (typeof cli.json?.token !== 'string') throw new Error(`tokens:create failed: ${cli.stderr}`);
    admin = cli.json.token;
    fixtures = new Fixtures(env.API_URL, admin);
    partner = await fixtures.partner();
    logistics = await fixtures.logisticsToken();
    productId = (await fixtures.product()).id;
  }, 120_000);

  afterAll(async () => {
    for (const pool of [primary, replica]) if (pool && !pool.ended) await pool.end();
    if (existsSync(TOPOLOGY_ENV.TOPOLOGY_DIR)) await topology('down');
  }, 90_000);

  /** Waits until the replica has replayed everything the primary has written so far. */
  const replayedAll = async () => {
    const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    await eventually(
      async () => {
        const replayed = await replica.query<{ done: boolean }>(
          'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
          [rows[0].lsn],
        );
        return replayed.rows[0].done;
      },
      () => 'the replica does not catch up with the primary',
    );
  };

  describe('with replay paused on the replica', () => {
    /**
     * Companies whose last write the replica has replayed before the pause, each with its order: the write a
     * test makes is the first of its company since, so a write that did not record the company's position
     * would let the replica answer the read that follows (and the test fail).
     */
    let ofComment: { partner: Partner; id: number };
    let ofLogistics: { partner: Partner; id: number };
    let ofSandbox: { partner: Partner; id: number };
    let ofToken: { partner: Partner; id: number };
    /**
     * A company with a webhook endpoint at `receiver`, which reads each placed order it is told of at once;
     * what each read answered, by order id, once it has.
     */
    let ofWebhook: { partner: Partner; id: number };
    let receiver: WebhookReceiver;
    const receiverRead = new Map<number, { status: number; orderId: unknown }>();

    const prepared = async (overrides: Record<string, unknown> = {}) => {
      const owner = await fixtures.partner();
      const placed = await asPartner('post', '/api/v2/order', owner.token)
        .send(orderBody(productId, overrides))
        .expect(201);
      return { partner: owner, id: Number(placed.body.orders[0].order_id) };
    };

    beforeAll(async () => {
      ofComment = await prepared();
      ofLogistics = await prepared();
      ofSandbox = await prepared({ test: true });
      ofToken = await prepared();
      ofWebhook = await prepared();
      receiver = await startWebhookReceiver(({ body }) => {
        const event = JSON.parse(body) as { type: string; data: { order_id: number } };
        const id = event.data.order_id;
        if (event.type === 'order.placed' && id !== ofWebhook.id) {
          void asPartner('get', `/api/v2/order/${id}`, ofWebhook.partner.token).then((response) =>
            receiverRead.set(id, { status: response.status, orderId: response.body.order_id }),
          );
        }
        return 200;
      });
      await api()
        .post('/api/v2/admin/webhooks')
        .set('Authorization', `Bearer ${admin}`)
        .send({ company_id: ofWebhook.partner.companyId, url: `${receiver.url}/hooks` })
        .expect(201);
      await replayedAll();
      await onReplicaAsSuperuser('SELECT pg_wal_replay_pause()');
      await eventually(
        async () => (await onReplicaAsSuperuser('SELECT pg_get_wal_replay_pause_state()')) === 'paused',
        () => 'replay does not pause',
      );
    });

    afterAll(async () => {
      await onReplicaAsSuperuser('SELECT pg_wal_replay_resume()');
      await receiver?.close();
    });

    it('place, then EXCHANGE it and GET both: the replica has neither, the client sees both', async () => {
      const behindBefore = await reads('primary', 'replica_behind');
      const original = await place();
      const exchange = await place({ order_type: 'EXCHANGE', original_order_id: original });
      expect(await onReplica(original)).toBe(false);
      expect((await getOrder(original)).order_id).toBe(original);
      const read = await getOrder(exchange);
      expect(read.order_type).toBe('EXCHANGE');
      expect(read.original_order_id).toBe(String(original));
      expect(await reads('primary', 'replica_behind')).toBeGreaterThan(behindBefore);
    });

    it('issue a token, then use it, and find it in the company’s audit list', async () => {
      const issued = await fixtures.partnerOf(ofToken.partner.companyId);
      const response = await asPartner('get', '/api/v2/orders', issued.token).expect(200);
      expect(orderIds(response.body)).toEqual([ofToken.id]);
      const audit = await api()
        .get(`/api/v2/admin/audit-events?company_id=${ofToken.partner.companyId}`)
        .set('Authorization', `Bearer ${admin}`)
        .expect(200);
      const events = (audit.body as Page<{ action: string; target_id: number }>).data;
      expect(events.map((event) => [event.action, event.target_id])).toContainEqual([
        'token.issued',
        issued.tokenId,
      ]);
    });

    it('create a product, then order it', async () => {
      const product = await fixtures.product();
      await asPartner('post', '/api/v2/order').send(orderBody(product.id)).expect(201);
    });

    it('write, then list and export', async () => {
      const id = await place();
      const listed = await asPartner('get', '/api/v2/orders').expect(200);
      expect(orderIds(listed.body)).toContain(id);
      const exported = await asPartner('get', '/api/v2/orders/export?format=ndjson')
        .buffer(true)
        .parse(asText)
        .expect(200);
      expect(exported.text).toContain(`"order_id":${id}`);
    });

    it('write, then read the feed and the audit list', async () => {
      const id = await place();
      await eventually(
        async () => {
          const feed = await asPartner('get', '/api/v2/events').expect(200);
          return (feed.body as Page<{ type: string; data: { order_id?: number } }>).data.some(
            (event) => event.type === 'order.placed' && event.data.order_id === id,
          );
        },
        () => 'the feed does not show the placement',
        10_000,
      );
      const audit = await api()
        .get(`/api/v2/admin/audit-events?company_id=${partner.companyId}`)
        .set('Authorization', `Bearer ${admin}`)
        .expect(200);
      expect((audit.body as Page<{ target_id: number }>).data.map((event) => event.target_id)).toContain(id);
    });

    it('comment, then read the order', async () => {
      const { partner: owner, id } = ofComment;
      await asPartner('post', `/api/v2/order/${id}/comment`, owner.token)
        .send({ partner_comment: 'Ring twice' })
        .expect(200);
      const read = await asPartner('get', `/api/v2/order/${id}`, owner.token).expect(200);
      expect(JSON.stringify(read.body.comments)).toContain('Ring twice');
    });

    it('a logistics write, then the partner reads the order', async () => {
      const { partner: owner, id } = ofLogistics;
      const read = () => asPartner('get', `/api/v2/order/${id}`, owner.token).expect(200);
      await api()
        .post(`/api/v2/logistics/orders/${id}/sent`)
        .set('Authorization', `Bearer ${logistics}`)
        .expect(200);
      expect((await read()).body.state).toBe('SENT_TO_LOGISTICS');
      await api()
        .put(`/api/v2/logistics/orders/${id}/trackings/PKG-${id}`)
        .set('Authorization', `Bearer ${logistics}`)
        .send({})
        .expect(201);
      expect(JSON.stringify((await read()).body.trackings)).toContain(`PKG-${id}`);
    });

    it('place, and the webhook’s receiver reads the order at once: it sees it, however late the placement records its position', async () => {
      const { partner: owner } = ofWebhook;
      // The placement records its company's position after it commits, in a statement of its own: held back
      // here, as on an instance that stalls (or dies) between the two, while the worker sends the webhook.
      const lock = new Client({ connectionString: env.PRIMARY_URL });
      await lock.connect();
      try {
        await lock.query('BEGIN');
        const held = await lock.query('SELECT 1 FROM company_write_positions WHERE company_id = $1 FOR UPDATE', [
          owner.companyId,
        ]);
        expect(held.rowCount).toBe(1);
        const behindBefore = await reads('primary', 'replica_behind');
        const placing = asPartner('post', '/api/v2/order', owner.token)
          .send(orderBody(productId))
          .expect(201)
          .then((response) => Number(response.body.orders[0].order_id));
        // Long enough for the worker (polling every second) to claim and send the webhook, and the receiver to
        // read, unless the claim waits for the company's position.
        const deadline = Date.now() + 5_000;
        while (receiverRead.size === 0 && Date.now() < deadline) await delay(25);
        await lock.query('ROLLBACK');
        const id = await placing;
        await receiver.waitFor(() => receiverRead.has(id));
        expect(receiverRead.get(id)).toEqual({ status: 200, orderId: id });
        expect(await onReplica(id)).toBe(false);
        expect(await reads('primary', 'replica_behind')).toBeGreaterThan(behindBefore);
      } finally {
        await lock.end();
      }
    });

    it('the sandbox, then the partner reads the order', async () => {
      const { partner: owner, id } = ofSandbox;
      await asPartner('post', `/api/v2/order/${id}/simulate`, owner.token)
        .send({ to: 'DELIVERED' })
        .expect(200);
      const read = await asPartner('get', `/api/v2/order/${id}`, owner.token).expect(200);
      expect(read.body.state).toBe('DELIVERED');
    });
  });

  describe('with replay running', () => {
    it('reads reach the replica once it has replayed the company’s writes', async () => {
      const id = await place();
      const { rows } = await primary.query<{ lsn: string }>(
        'SELECT lsn::text FROM company_write_positions WHERE company_id = $1',
        [partner.companyId],
      );
      await eventually(
        async () => {
          const replayed = await replica.query<{ done: boolean }>(
            'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
            [rows[0].lsn],
          );
          return replayed.rows[0].done;
        },
        () => 'the replica does not replay the company’s last write',
      );
      expect(await onReplica(id)).toBe(true);
      const before = await reads('replica', 'caught_up');
      expect((await getOrder(id)).order_id).toBe(id);
      await asPartner('get', '/api/v2/orders').expect(200);
      await asPartner('get', '/api/v2/events').expect(200);
      expect((await reads('replica', 'caught_up')) - before).toBe(3);
    });
  });

  describe('when the replica stops', () => {
    beforeAll(async () => {
      await promisify(execFile)('runuser', [
        '-u',
        'postgres',
        '--',
        join(PG_BIN, 'pg_ctl'),
        '-D',
        join(TOPOLOGY_ENV.TOPOLOGY_DIR, 'replica'),
        '-m',
        'fast',
        '-w',
        'stop',
      ]);
    });

    it('costs no request: the primary answers, counted as replica_unavailable', async () => {
      const before = await reads('primary', 'replica_unavailable');
      for (let round = 0; round < 5; round += 1) {
        const id = await place();
        expect((await getOrder(id)).order_id).toBe(id);
        const listed = await asPartner('get', '/api/v2/orders').expect(200);
        expect(orderIds(listed.body)).toContain(id);
      }
      expect(await reads('primary', 'replica_unavailable')).toBeGreaterThan(before);
      expect(await reads('primary', 'replica_behind')).toBeGreaterThan(0);
    });
  });
});
