import request from 'supertest';
import { fromDist, issueAdminToken, startApp, type TestApp } from '../harness/app';
import { Fixtures, orderBody, type Partner } from '../harness/factories';

type ImportWorker = import('../../src/imports/import-worker').ImportWorker;
type ImportsRepository = import('../../src/imports/imports.repository').ImportsRepository;
type OrdersService = import('../../src/orders/application/orders.service').OrdersService;
type OrderImport = import('../../src/imports/order-import.entities').OrderImport;

const LEASE_MS = 60_000;

/**
 * The import worker called directly on PostgreSQL (the app's own worker is off: SERVICE_ROLE=api): a crash in
 * the middle of a batch and a restart place every line exactly once with complete results; a lost lease places
 * nothing; a stop gives the lease back; at most 2 imports of a company run at once; an import claimed too often
 * fails with its event.
 */
describe('the import worker (ImportWorker, ImportsRepository.claim)', () => {
  let app: TestApp;
  let fixtures: Fixtures;
  let worker: ImportWorker;
  let imports: ImportsRepository;
  let orders: OrdersService;
  let productId: number;

  const upload = async (partner: Partner, lines: number): Promise<number> => {
    const file = Array.from({ length: lines }, (_, index) =>
      JSON.stringify(orderBody(productId, { email: `line-${index + 1}@example.com` })),
    ).join('\n');
    const response = await request(app.url)
      .post('/api/v2/orders/imports')
      .set({ Authorization: `Bearer ${partner.token}`, 'Content-Type': 'application/x-ndjson' })
      .send(file)
      .expect(202);
    return response.body.id as number;
  };
  const claim = async (owner = worker.owner): Promise<OrderImport> => {
    const claimed = await imports.claim(owner, LEASE_MS, 2);
    expect(claimed).not.toBeNull();
    return claimed!;
  };
  const expireLease = (id: number) =>
    app.db.query("UPDATE order_imports SET lease_until = now() - interval '1 second' WHERE id = $1", [id]);
  const state = async (id: number) =>
    (
      await app.db.query(
        `SELECT i.state, i.placed, i.failed, i.total, i.lease_owner,
           (SELECT count(*)::int FROM order_import_lines l WHERE l.import_id = i.id AND l.result IS NOT NULL) AS results,
           (SELECT count(*)::int FROM orders o WHERE o.company_id = i.company_id) AS orders
         FROM order_imports i WHERE i.id = $1`,
        [id],
      )
    ).rows[0] as {
      state: string;
      placed: number;
      failed: number;
      total: number;
      lease_owner: string | null;
      results: number;
      orders: number;
    };

  beforeAll(async () => {
    app = await startApp({
      env: { SERVICE_ROLE: 'api', RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    fixtures = new Fixtures(app.url, await issueAdminToken(app));
    productId = (await fixtures.product()).id;
    worker = app.get(
      fromDist<typeof import('../../src/imports/import-worker')>('imports/import-worker').ImportWorker,
    );
    imports = app.get(
      fromDist<typeof import('../../src/imports/imports.repository')>('imports/imports.repository')
        .ImportsRepository,
    );
    orders = app.get(
      fromDist<typeof import('../../src/orders/application/orders.service')>(
        'orders/application/orders.service',
      ).OrdersService,
    );
  });

  afterAll(async () => {
    await app.stop();
  });

  it('crashes in the middle of a batch, starts again: every line placed once, its own order, the results complete', async () => {
    const partner = await fixtures.partner();
    const id = await upload(partner, 1_000);
    const placeIn = orders.placeIn.bind(orders);
    let calls = 0;
    const spy = jest.spyOn(orders, 'placeIn').mockImplementation(async (...args) => {
      calls += 1;
      if (calls === 450) throw new Error('the process died here');
      return placeIn(...args);
    });
    await expect(worker.run(await claim())).rejects.toThrow('the process died here');
    spy.mockRestore();
    // The batch it died in left nothing, neither its orders nor a result; the batches that committed left both.
    const crashed = await state(id);
    expect(crashed).toMatchObject({ state: 'running', results: crashed.placed, orders: crashed.placed });
    expect(crashed.placed % 200).toBe(0);
    expect(crashed.placed).toBeGreaterThanOrEqual(200);
    expect(crashed.placed).toBeLessThan(1_000);

    await expireLease(id);
    await worker.run(await claim('another-instance'));
    expect(await state(id)).toMatchObject({
      state: 'completed',
      placed: 1_000,
      failed: 0,
      results: 1_000,
      orders: 1_000,
    });
    const lines = await app.db.query(
      `SELECT l.line, o.email FROM order_import_lines l JOIN orders o ON o.id = l.order_id
       WHERE l.import_id = $1 ORDER BY l.line`,
      [id],
    );
    expect(lines.rows).toHaveLength(1_000);
    expect(
      lines.rows.every(
        (row: { line: number; email: string }) => row.email === `line-${row.line}@example.com`,
      ),
    ).toBe(true);
    const completed = await app.db.query(
      "SELECT count(*)::int AS n FROM events WHERE type = 'import.completed' AND company_id = $1",
      [partner.companyId],
    );
    expect(completed.rows[0].n).toBe(1);
  });

  it('a worker whose lease was taken over places nothing more', async () => {
    const partner = await fixtures.partner();
    const id = await upload(partner, 10);
    const stale = await claim();
    await expireLease(id);
    await claim('the-new-holder');
    await worker.run(stale);
    expect(await state(id)).toMatchObject({
      state: 'running',
      placed: 0,
      results: 0,
      orders: 0,
      lease_owner: 'the-new-holder',
    });
  });

  it('a stopped worker gives its lease back after the batch in progress; the next claim resumes', async () => {
    const partner = await fixtures.partner();
    const id = await upload(partner, 500);
    let batches = 0;
    await worker.run(await claim(), () => batches++ === 1);
    expect(await state(id)).toMatchObject({
      state: 'running',
      placed: 200,
      results: 200,
      orders: 200,
      lease_owner: null,
    });
    await worker.run(await claim());
    expect(await state(id)).toMatchObject({ state: 'completed', placed: 500, results: 500, orders: 500 });
    // A lease given back is not a lost one: no attempt counted.
    const { rows } = await app.db.query('SELECT attempts FROM order_imports WHERE id = $1', [id]);
    expect(rows[0].attempts).toBe(0);
  });

  it('runs at most 2 imports of a company at once: the third waits queued while another company’s runs', async () => {
    const busy = await fixtures.partner();
    const other = await fixtures.partner();
    const first = await upload(busy, 1);
    const second = await upload(busy, 1);
    const third = await upload(busy, 1);
    const others = await upload(other, 1);
    const claimed = [await claim(), await claim(), await claim()].map((row) => row.id);
    expect(claimed).toEqual([first, second, others]);
    expect(await imports.claim(worker.owner, LEASE_MS, 2)).toBeNull();
    expect((await state(third)).state).toBe('queued');
    const response = await request(app.url)
      .get(`/api/v2/orders/imports/${third}`)
      .set({ Authorization: `Bearer ${busy.token}` })
      .expect(200);
    expect(response.body.state).toBe('queued');
  });

  it('fails an import whose lease was lost more than 5 times, every line left with its error, and says so with import.failed', async () => {
    const partner = await fixtures.partner();
    const id = await upload(partner, 3);
    // Its fifth lost lease: a worker held it, and its lease expired without being given back.
    await app.db.query(
      `UPDATE order_imports SET state = 'running', attempts = 5, lease_owner = 'a-dead-instance',
         lease_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    await worker.run(await claim());
    expect(await state(id)).toMatchObject({ state: 'failed', placed: 0, failed: 3, results: 3, orders: 0 });
    const events = await app.db.query(
      "SELECT data FROM events WHERE type = 'import.failed' AND company_id = $1",
      [partner.companyId],
    );
    expect(events.rows[0].data).toEqual({
      import_id: id,
      state: 'failed',
      dry_run: false,
      total: 3,
      placed: 0,
      failed: 3,
    });
  });
});
