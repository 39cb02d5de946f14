import { connect } from 'node:net';
import request from 'supertest';
import { asText } from './harness/as-text';
import { fromDist, issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';

/** CONTRACT §4.11: bulk import, every sentence and the hostile files (issue 34). */
describe('bulk import (POST /orders/imports)', () => {
  let app: TestApp;
  let fixtures: Fixtures;
  let adminToken: string;
  let partner: Partner;
  let productId: number;

  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  /** The columns an import reads: the export's placement columns and country (derived, as the export's are). */
  const { IMPORT_CSV_COLUMNS: CSV_COLUMNS } =
    fromDist<typeof import('../src/imports/import-file')>('imports/import-file');
  const csvCell = (value: string | number | boolean | null | undefined): string => {
    if (value === undefined || value === null) return '';
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const csvOf = (bodies: Body[], columns = CSV_COLUMNS, lineBreak = '\r\n'): string =>
    [
      columns.join(','),
      ...bodies.map((body) =>
        columns.map((column) => csvCell(body[column] as string | number | undefined)).join(','),
      ),
    ]
      .map((line) => line + lineBreak)
      .join('');
  const ndjsonOf = (lines: unknown[]): string => lines.map((line) => JSON.stringify(line) + '\n').join('');

  const upload = (
    file: string | Buffer,
    type = 'text/csv',
    token = partner.token,
    query = '',
    headers: Record<string, string> = {},
  ) =>
    request(app.url)
      .post(`/api/v2/orders/imports${query}`)
      .set({ ...as(token), 'Content-Type': type, ...headers })
      .send(file);

  const finished = async (id: number, token = partner.token) => {
    let body: Record<string, unknown> = {};
    await eventually(
      async () => {
        body = (await request(app.url).get(`/api/v2/orders/imports/${id}`).set(as(token)).expect(200)).body;
        return body.state === 'completed' || body.state === 'failed';
      },
      () => `import ${id} did not finish: ${JSON.stringify(body)}`,
      60_000,
    );
    return body;
  };
  const results = async (id: number, token = partner.token, path = '/api/v2/orders/imports') => {
    const response = await request(app.url)
      .get(`${path}/${id}/results`)
      .set(as(token))
      .buffer(true)
      .parse(asText)
      .expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    return (response.body as string)
      .split('\n')
      .filter((line) => line !== '')
      .map(
        (line) => JSON.parse(line) as { line: number; order_id?: number; errors?: Record<string, string[]> },
      );
  };
  const placeErrors = async (body: unknown) => {
    const response = await request(app.url)
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(body as object);
    expect(response.status).toBe(400);
    return response.body.errors as Record<string, string[]>;
  };
  const counts = async (companyId: number) =>
    (
      await app.db.query(
        `SELECT (SELECT count(*)::int FROM orders WHERE company_id = $1) AS orders,
                (SELECT count(*)::int FROM order_imports WHERE company_id = $1) AS imports`,
        [companyId],
      )
    ).rows[0] as { orders: number; imports: number };

  beforeAll(async () => {
    app = await startApp({
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
        IMPORT_POLL_INTERVAL_MS: '100',
        // For an upload, the longest silence allowed (a stalled client is cut off after it).
        REQUEST_BODY_TIMEOUT_MS: '1500',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    adminToken = await issueAdminToken(app);
    fixtures = new Fixtures(app.url, adminToken);
    partner = await fixtures.partner();
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await app.stop();
  });

  it('answers 202 with the import at once, places every good line as POST /order would, and gives each bad line exactly its errors map', async () => {
    const good = [orderBody(productId), orderBody(productId, { test: 'true' }), orderBody(productId)];
    const badProduct = orderBody(productId, { product_id: 999_999 });
    const badEmail = { ...orderBody(productId), email: 'not-an-email', first_name: undefined };
    const bodies = [good[0], badProduct, good[1], badEmail, good[2]];
    const response = await upload(csvOf(bodies)).expect(202);
    expect(response.body).toMatchObject({
      state: 'queued',
      format: 'csv',
      dry_run: false,
      total: 5,
      placed: 0,
      failed: 0,
      started_at: null,
      finished_at: null,
    });
    expect(response.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    const done = await finished(response.body.id);
    expect(done).toMatchObject({ state: 'completed', total: 5, placed: 3, failed: 2 });
    expect(done.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);

    const lines = await results(response.body.id);
    expect(lines.map((line) => line.line)).toEqual([1, 2, 3, 4, 5]);
    const csvBody = (body: Body) =>
      Object.fromEntries(
        CSV_COLUMNS.filter((column) => body[column] !== undefined).map((column) => [
          column,
          String(body[column]),
        ]),
      );
    expect(lines[1]).toEqual({ line: 2, errors: await placeErrors(csvBody(badProduct)) });
    expect(lines[3]).toEqual({ line: 4, errors: await placeErrors(csvBody(badEmail)) });
    expect(Object.keys(lines[3].errors!).sort()).toEqual(['email', 'first_name']);
    for (const index of [0, 2, 4]) expect(Object.keys(lines[index]).sort()).toEqual(['line', 'order_id']);

    // Each placed order is the line's, with its audit row and order.placed event, TEST for a test line.
    const placed = [lines[0], lines[2], lines[4]].map((line) => line.order_id!);
    const orders = await Promise.all(
      placed.map(
        async (id) =>
          (await request(app.url).get(`/api/v2/order/${id}`).set(as(partner.token)).expect(200)).body as Body,
      ),
    );
    expect(orders.map((order) => order.email)).toEqual(good.map((body) => body.email));
    expect(orders.map((order) => order.state)).toEqual(['PLACED', 'TEST', 'PLACED']);
    expect(orders[0].password).toBe(good[0].password);
    const audit = await app.db.query(
      `SELECT target_id, user_name, action FROM audit_events WHERE action = 'order.placed' AND target_id = ANY($1::text[])`,
      [placed.map(String)],
    );
    expect(audit.rows).toHaveLength(3);
    expect(audit.rows.every((row: { user_name: string }) => row.user_name === partner.userName)).toBe(true);
    const feed = (await request(app.url).get('/api/v2/events').set(as(partner.token)).expect(200)).body
      .data as {
      type: string;
      data: Record<string, unknown>;
    }[];
    expect(feed.filter((event) => event.type === 'order.placed').map((event) => event.data.order_id)).toEqual(
      expect.arrayContaining(placed),
    );
    expect(feed.find((event) => event.type === 'import.completed')?.data).toEqual({
      import_id: response.body.id,
      state: 'completed',
      dry_run: false,
      total: 5,
      placed: 3,
      failed: 2,
    });
    // The file's bodies (device passwords) are not kept once the lines have their results.
    const kept = await app.db.query(
      'SELECT count(*)::int AS n FROM order_import_lines WHERE import_id = $1 AND body IS NOT NULL',
      [response.body.id],
    );
    expect(kept.rows[0].n).toBe(0);
  });

  it('imports NDJSON, one POST /order body per line; a line that is not an object gets the errors POST /order would give', async () => {
    const good = orderBody(productId);
    const file = [
      JSON.stringify(good),
      '[1, 2]',
      '"just a string"',
      '{"first_name": ',
      '',
      JSON.stringify(orderBody(productId, { order_type: 'NOPE' })),
    ].join('\n'); // the last line has no line break: it is read all the same
    const response = await upload(file, 'application/x-ndjson').expect(202);
    expect(response.body.total).toBe(5);
    const done = await finished(response.body.id);
    expect(done).toMatchObject({ state: 'completed', placed: 1, failed: 4 });
    const lines = await results(response.body.id);
    expect(lines.map((line) => line.line)).toEqual([1, 2, 3, 4, 5]);
    expect(lines[0].order_id).toEqual(expect.any(Number));
    expect(lines[1]).toEqual({ line: 2, errors: await placeErrors([1, 2]) });
    expect(lines[2]).toEqual({ line: 3, errors: { body: ['Malformed JSON.'] } });
    expect(lines[3]).toEqual({ line: 4, errors: { body: ['Malformed JSON.'] } });
    expect(lines[4]).toEqual({
      line: 5,
      errors: await placeErrors(orderBody(productId, { order_type: 'NOPE' })),
    });
  });

  it('an NDJSON file that stops in the middle of its last line: that line is refused, the others placed', async () => {
    const other = await fixtures.partner();
    const whole = JSON.stringify(orderBody(productId));
    const file = `${whole}\n${whole.slice(0, whole.length / 2)}`;
    const response = await upload(file, 'application/x-ndjson', other.token).expect(202);
    expect(await finished(response.body.id, other.token)).toMatchObject({ total: 2, placed: 1, failed: 1 });
    expect((await results(response.body.id, other.token))[1]).toEqual({
      line: 2,
      errors: { body: ['Malformed JSON.'] },
    });
  });

  it('dry_run=true checks every line and places nothing; the results say what would happen', async () => {
    const other = await fixtures.partner();
    const file = ndjsonOf([orderBody(productId), orderBody(productId, { product_id: 0 })]);
    const response = await upload(file, 'application/x-ndjson', other.token, '?dry_run=true').expect(202);
    expect(response.body.dry_run).toBe(true);
    const done = await finished(response.body.id, other.token);
    expect(done).toMatchObject({ state: 'completed', total: 2, placed: 1, failed: 1 });
    const lines = await results(response.body.id, other.token);
    expect(lines[0]).toEqual({ line: 1 });
    expect(lines[1].errors).toEqual(await placeErrors(orderBody(productId, { product_id: 0 })));
    expect((await counts(other.companyId)).orders).toBe(0);
  });

  it('reads every kind of line break and quoting inside CSV fields, a BOM, and an export-style formula prefix', async () => {
    const other = await fixtures.partner();
    const notes = [
      'Ring\r\ntwice',
      'a "quoted" word',
      'line\nfeed',
      'carriage\rreturn',
      'comma, inside',
      '=SUM(A1)',
    ];
    const bodies = notes.map((text) => orderBody(productId, { consignee: text }));
    const file = csvOf(bodies).replace('=SUM(A1)', "'=SUM(A1)");
    const response = await upload(`\uFEFF${file}`, 'text/csv', other.token).expect(202);
    expect(response.body.total).toBe(notes.length);
    expect(await finished(response.body.id, other.token)).toMatchObject({ placed: notes.length, failed: 0 });
    const stored = await app.db.query('SELECT consignee FROM orders WHERE company_id = $1 ORDER BY id', [
      other.companyId,
    ]);
    expect(stored.rows.map((row: { consignee: string }) => row.consignee)).toEqual(notes);
  });

  it('imports the export of another company as it is (its extra columns ignored)', async () => {
    const source = await fixtures.partnerWithOrder();
    const exported = await request(app.url)
      .get('/api/v2/orders/export?format=csv')
      .set(as(source.partner.token))
      .buffer(true)
      .parse(asText)
      .expect(200);
    const target = await fixtures.partner();
    const response = await upload(exported.body as string, 'text/csv', target.token).expect(202);
    expect(await finished(response.body.id, target.token)).toMatchObject({ total: 1, placed: 1, failed: 0 });
  });

  describe('a file refused whole: 400 naming it, nothing stored or placed', () => {
    let victim: Partner;
    beforeAll(async () => {
      victim = await fixtures.partner();
    });
    afterEach(async () => {
      expect(await counts(victim.companyId)).toEqual({ orders: 0, imports: 0 });
    });
    const refused = async (file: string | Buffer, type: string, message: RegExp) => {
      const response = await upload(file, type, victim.token).expect(400);
      expect(response.body.message).toBe('Bad request.');
      expect(response.body.errors.file).toEqual([expect.stringMatching(message)]);
    };

    it('an empty file', () => refused('', 'application/x-ndjson', /no order/));
    it('a CSV with only its header', () => refused(CSV_COLUMNS.join(',') + '\n', 'text/csv', /no order/));
    it('a missing column', () =>
      refused(
        csvOf(
          [orderBody(productId)],
          CSV_COLUMNS.filter((c) => c !== 'email'),
        ),
        'text/csv',
        /Missing column: email/,
      ));
    it('an unknown column', () =>
      refused(
        csvOf([orderBody(productId)], [...CSV_COLUMNS, 'colour']),
        'text/csv',
        /Unknown column: colour/,
      ));
    it('a line over 1 MiB (NDJSON)', () =>
      refused(
        ndjsonOf([orderBody(productId), orderBody(productId, { note: 'x'.repeat(1024 * 1024) })]),
        'application/x-ndjson',
        /Line 2 is over 1 MiB/,
      ));
    it('a line over 1 MiB (CSV)', () =>
      refused(
        csvOf([orderBody(productId, { consignee: 'x'.repeat(1024 * 1024 + 10) })]),
        'text/csv',
        /Line 1 is over 1 MiB/,
      ));
    it('more than 100,000 lines', () =>
      refused('{}\n'.repeat(100_001), 'application/x-ndjson', /more than 100000 orders/));
    it('text that is not UTF-8', () =>
      refused(
        Buffer.concat([Buffer.from(csvOf([orderBody(productId)])), Buffer.from([0xc3, 0x28, 0x0a])]),
        'text/csv',
        /not UTF-8/,
      ));
    it('an NDJSON line that is not UTF-8', () =>
      refused(
        Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
        'application/x-ndjson',
        /Line 1 is not UTF-8/,
      ));
    it('a CSV that stops inside a quoted field', () =>
      refused(csvOf([orderBody(productId)]) + 'Anna,"Nov', 'text/csv', /never closes/));
  });

  it('a CSV line with another number of fields than the header is that line’s error, the others placed', async () => {
    const other = await fixtures.partner();
    const file = csvOf([orderBody(productId)]) + 'only,three,fields\r\n';
    const response = await upload(file, 'text/csv', other.token).expect(202);
    expect(await finished(response.body.id, other.token)).toMatchObject({ total: 2, placed: 1, failed: 1 });
    expect((await results(response.body.id, other.token))[1]).toEqual({
      line: 2,
      errors: { body: [`The line has 3 fields; the header has ${CSV_COLUMNS.length}.`] },
    });
  });

  it('an upload cut off by the client leaves nothing, and the service goes on answering', async () => {
    const other = await fixtures.partner();
    const { port } = new URL(app.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/v2/orders/imports HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
            `Authorization: Bearer ${other.token}\r\nContent-Type: application/x-ndjson\r\n` +
            'Content-Length: 100000\r\n\r\n' +
            ndjsonOf([orderBody(productId), orderBody(productId)]),
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 300);
      });
      socket.on('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await counts(other.companyId)).toEqual({ orders: 0, imports: 0 });
    await request(app.url).get('/api/v2/orders/imports').set(as(other.token)).expect(200);
  });

  it('an upload that stalls is cut off with a 400, nothing stored', async () => {
    const other = await fixtures.partner();
    const { port } = new URL(app.url);
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /api/v2/orders/imports HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
            `Authorization: Bearer ${other.token}\r\nContent-Type: application/x-ndjson\r\n` +
            'Content-Length: 100000\r\n\r\n' +
            ndjsonOf([orderBody(productId)]),
        );
      });
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('The upload stalled: nothing arrived for 1.5 seconds.');
    expect(await counts(other.companyId)).toEqual({ orders: 0, imports: 0 });
  });

  it('sends import.completed to the company’s webhook endpoints', async () => {
    const other = await fixtures.partner();
    await request(app.url)
      .post('/api/v2/admin/webhooks')
      .set(as(adminToken))
      .send({
        company_id: other.companyId,
        url: 'http://127.0.0.1:9/hook',
      })
      .expect(201);
    const response = await upload(
      ndjsonOf([orderBody(productId)]),
      'application/x-ndjson',
      other.token,
    ).expect(202);
    await finished(response.body.id, other.token);
    const deliveries = await app.db.query(
      `SELECT d.event_type, e.data FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE e.company_id = $1 AND d.event_type LIKE 'import.%'`,
      [other.companyId],
    );
    expect(deliveries.rows).toEqual([
      {
        event_type: 'import.completed',
        data: {
          import_id: response.body.id,
          state: 'completed',
          dry_run: false,
          total: 1,
          placed: 1,
          failed: 0,
        },
      },
    ]);
  });

  it('refuses another media type with 415', async () => {
    const response = await upload('{}', 'application/json').expect(415);
    expect(response.body.message).toMatch(/text\/csv or application\/x-ndjson/);
    await upload('a', 'text/csv; charset=latin1').expect(415);
  });

  it('with an Idempotency-Key, a repeat of the same file returns the first import; another file gets 422', async () => {
    const other = await fixtures.partner();
    const file = ndjsonOf([orderBody(productId)]);
    const key = { 'Idempotency-Key': `import-${other.companyId}` };
    const first = await upload(file, 'application/x-ndjson', other.token, '', key).expect(202);
    const again = await upload(file, 'application/x-ndjson', other.token, '', key).expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    await upload(ndjsonOf([orderBody(productId)]), 'application/x-ndjson', other.token, '', key).expect(422);
    await finished(first.body.id, other.token);
    expect(await counts(other.companyId)).toEqual({ orders: 1, imports: 1 });
  });

  it("lists the company's imports, newest first; another company's import is not found", async () => {
    const one = await fixtures.partner();
    const two = await fixtures.partner();
    const a = (await upload(ndjsonOf([orderBody(productId)]), 'application/x-ndjson', one.token).expect(202))
      .body;
    const b = (await upload(ndjsonOf([orderBody(productId)]), 'application/x-ndjson', one.token).expect(202))
      .body;
    const list = await request(app.url)
      .get('/api/v2/orders/imports?per_page=1')
      .set(as(one.token))
      .expect(200);
    expect((list.body.data as { id: number }[]).map((row) => row.id)).toEqual([b.id]);
    expect(list.body.links.next).toMatch(/page=2/);
    const page2 = await request(app.url)
      .get('/api/v2/orders/imports?per_page=1&page=2')
      .set(as(one.token))
      .expect(200);
    expect((page2.body.data as { id: number }[]).map((row) => row.id)).toEqual([a.id]);
    const foreign = await request(app.url)
      .get(`/api/v2/orders/imports/${a.id}`)
      .set(as(two.token))
      .expect(404);
    expect(foreign.body).toEqual({ message: 'Import not found.' });
    await request(app.url).get(`/api/v2/orders/imports/${a.id}/results`).set(as(two.token)).expect(404);
    await request(app.url).get('/api/v2/orders/imports/abc').set(as(two.token)).expect(404);
    expect(
      (await request(app.url).get('/api/v2/orders/imports').set(as(two.token)).expect(200)).body.data,
    ).toEqual([]);

    // Admins see every company's imports.
    const all = await request(app.url).get('/api/v2/admin/orders/imports').set(as(adminToken)).expect(200);
    expect((all.body.data as { company_id: number }[]).map((row) => row.company_id)).toEqual(
      expect.arrayContaining([one.companyId]),
    );
    const ofOne = await request(app.url)
      .get(`/api/v2/admin/orders/imports?company_id=${one.companyId}`)
      .set(as(adminToken))
      .expect(200);
    expect((ofOne.body.data as { id: number }[]).map((row) => row.id)).toEqual([b.id, a.id]);
    const single = await request(app.url)
      .get(`/api/v2/admin/orders/imports/${a.id}`)
      .set(as(adminToken))
      .expect(200);
    expect(single.body).toMatchObject({ id: a.id, company_id: one.companyId });
    await finished(a.id, one.token);
    expect(await results(a.id, adminToken, '/api/v2/admin/orders/imports')).toEqual([
      { line: 1, order_id: expect.any(Number) },
    ]);
    await request(app.url).get('/api/v2/admin/orders/imports').set(as(one.token)).expect(403);
  });
});
