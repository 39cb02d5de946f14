import { execFileSync } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { asText } from './harness/as-text';
import { eventually } from './harness/eventually';
import {
  abortAfterFirstChunk,
  copyOrder,
  HELD_SLOTS,
  type StalledClient,
  stalledExport,
} from './harness/exports';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';
import { startServiceExpectingFailure } from './harness/service';
import { ORDER_CSV_COLUMNS } from '../src/orders/domain/order-view';
import { plainTextFields } from './harness/text-fields';

type Item = Record<string, unknown> & {
  order_id: number;
  trackings: { tracking_number: string; delivery_date: string | null }[];
};

/** CONTRACT §4.10: the spec's scalar fields of the order in spec §2.3 order, then the export's own. */
const COLUMNS = ORDER_CSV_COLUMNS;

/** What a spreadsheet cell holds for a value of the list: text as is, null empty, a formula start guarded. */
function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  return /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value;
}

/** The CSV row an item of the list must come out as. */
function expectedRow(item: Item): Record<string, string> {
  const delivered = item.trackings
    .map((tracking) => tracking.delivery_date)
    .filter((date): date is string => date !== null)
    .sort();
  const fields: Record<string, unknown> = {
    ...item,
    tracking_numbers: item.trackings.map((tracking) => tracking.tracking_number).join(' '),
    delivered_at: delivered.at(-1) ?? null,
  };
  return Object.fromEntries(
    COLUMNS.map((column) => [column, cell(fields[column] as string | number | boolean | null)]),
  );
}

/**
 * Every text column of the file that a partner or logistics can fill with any text: the CSV columns that are
 * plain text fields of the placement or of logistics' patch (their DTOs' rules say which).
 */
const TEXT_COLUMNS = ORDER_CSV_COLUMNS.filter(
  (column) =>
    plainTextFields('place-order.dto:PlaceOrderDto').has(column) ||
    plainTextFields('logistics.dto:LogisticsPatchDto').has(column),
);

const LINE_BREAKS = { LF: '\n', CR: '\r', CRLF: '\r\n' };

/**
 * The file as spreadsheets and scripts read it: csv-parse told that any of CRLF, LF and CR ends a record (as
 * Excel, LibreOffice and Python do), and Python's csv module; both must see the same records.
 */
function readCsv(text: string): Record<string, string>[] {
  const records = parse<Record<string, string>>(text, {
    columns: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  const python = execFileSync(
    'python3',
    [
      '-c',
      'import csv, io, json, sys\n' +
        "print(json.dumps(list(csv.DictReader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8', newline='')))))",
    ],
    { input: text },
  );
  expect(JSON.parse(python.toString())).toEqual(records);
  return records;
}

/** The stall timeout the services under test run with (EXPORT_STALL_TIMEOUT_MS; 30 s by default). */
const STALL_MS = 4_000;

/** Reads what a stalled client still holds, until the connection ends; whether the file came whole. */
async function readToEnd({ socket, closed }: StalledClient): Promise<{ bytes: number; whole: boolean }> {
  let bytes = 0;
  let tail = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    bytes += chunk.length;
    tail = (tail + chunk).slice(-16);
  });
  socket.resume();
  await closed;
  return { bytes, whole: tail.endsWith('\r\n0\r\n\r\n') };
}

/** The resident set size of this process, which runs the service (test/harness/app.ts), in MB. */
const rssMb = (): number => process.memoryUsage().rss / 1024 / 1024;

const SERVICE_ENV = {
  RATE_LIMIT_PER_MINUTE: '100000',
  ADMIN_RATE_LIMIT_PER_MINUTE: '100000',
  EXPORT_STALL_TIMEOUT_MS: String(STALL_MS),
};

describe('the export: GET /orders/export (CONTRACT §4.10)', () => {
  let service: TestApp;
  let admin: string;
  let logisticsToken: string;
  let fixtures: Fixtures;
  let partner: Partner;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (overrides: Body = {}, owner = partner): Promise<number> => {
    const response = await api()
      .post('/api/v2/order')
      .set(as(owner.token))
      .send(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const download = (query: string, owner = partner) =>
    api().get(`/api/v2/orders/export?${query}`).set(as(owner.token)).buffer(true).parse(asText);
  const csvOf = async (query: string, owner = partner) => {
    const response = await download(`format=csv&${query}`, owner).expect(200);
    return readCsv(response.body as string);
  };
  const ndjsonOf = async (query: string, owner = partner) => {
    const response = await download(`format=ndjson&${query}`, owner).expect(200);
    const text = response.body as string;
    return text === ''
      ? []
      : text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Item);
  };
  /** Every page of the list with these filters. */
  async function listAll(query: string, owner = partner): Promise<Item[]> {
    const items: Item[] = [];
    for (let page = 1; ; page += 1) {
      const response = await api()
        .get(`/api/v2/orders?${query}&page=${page}`)
        .set(as(owner.token))
        .expect(200);
      items.push(...(response.body.data as Item[]));
      if (response.body.links.next === null) return items;
    }
  }
  /** `count` copies of an order, written straight into the database: one statement, one created_at for all. */
  const copies = (orderId: number, count: number) => copyOrder(service.db, orderId, count);

  beforeAll(async () => {
    service = await startApp({ env: SERVICE_ENV });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner('SK');
    productId = (await fixtures.product()).id;
    logisticsToken = await fixtures.logisticsToken();
  });

  afterAll(async () => {
    await service.stop();
  });

  it('writes every order of the company as the list shows it, field by field, newest first', async () => {
    const own = await fixtures.partner('CZ');
    const first = await place({ order_type: 'REGULAR', floor: '2', oms_user_id: 7 }, own);
    const second = await place({ order_type: 'EXCHANGE', original_order_id: String(first) }, own);
    await place({ test: true }, own);
    const logistics = (method: 'post' | 'put', path: string, body: Body = {}) =>
      api()[method](`/api/v2/logistics/orders/${second}${path}`).set(as(logisticsToken)).send(body);
    await logistics('post', '/sent').expect(200);
    await logistics('put', '/trackings/PKG-A', { delivery_date: '2026-11-20T10:00' }).expect(201);
    await logistics('put', '/trackings/PKG-B', { delivery_date: '2026-11-22T09:30' }).expect(201);
    await api()
      .post(`/api/v2/order/${first}/comment`)
      .set(as(own.token))
      .send({ partner_comment: 'Ring twice.' })
      .expect(200);
    await place({}, partner);

    const response = await download('format=csv', own).expect(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="orders-${today}.csv"`);
    const text = response.body as string;
    expect(text.split('\r\n')[0]).toBe(COLUMNS.join(','));
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parse<Record<string, string>>(text, { columns: true });
    const listed = await listAll('', own);
    expect(listed).toHaveLength(3);
    expect(rows).toEqual(listed.map(expectedRow));
    expect(rows[1]).toMatchObject({ tracking_numbers: 'PKG-A PKG-B', delivered_at: '2026-11-22T09:30' });
    expect(rows[0].login).toMatch(/^device-/);
  });

  it('quotes commas, quotes and line breaks, keeps four-byte characters, and guards formula starts', async () => {
    const values = {
      first_name: 'Comma, "Quoted" Anna',
      last_name: 'Line\nbreak\r\nand CRLF',
      consignee: '=HYPERLINK("http://evil.example","x")',
      city: '+421 Bratislava',
      street: '-2+3',
      house_number: '@SUM(A1)',
      door: '\tTabbed',
      opening_hours: '\rReturn',
      zip: '＝1+1',
      merchant_id: 'Pizza 🍕 𝄞 merchant',
    };
    const own = await fixtures.partner('AT');
    await place(values, own);
    const raw = (await download('format=csv', own).expect(200)).body as string;
    expect(raw).toContain('"Comma, ""Quoted"" Anna"');
    expect(raw).toContain('"Line\nbreak\r\nand CRLF"');
    expect(raw).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    const [row] = parse<Record<string, string>>(raw, { columns: true });
    expect(row).toMatchObject({
      first_name: values.first_name,
      last_name: values.last_name,
      consignee: `'${values.consignee}`,
      city: `'${values.city}`,
      street: `'${values.street}`,
      house_number: `'${values.house_number}`,
      door: `'${values.door}`,
      opening_hours: `'${values.opening_hours}`,
      zip: `'${values.zip}`,
      merchant_id: values.merchant_id,
    });
    const [item] = await ndjsonOf('', own);
    expect(item).toMatchObject(values);
  });

  it.each(Object.entries(LINE_BREAKS))(
    'keeps one record per order when every text column holds a line break (%s)',
    async (_name, lineBreak) => {
      const own = await fixtures.partner('AT');
      const texts = Object.fromEntries(TEXT_COLUMNS.map((column) => [column, `${column}${lineBreak}line 2`]));
      const { serial_number: serialNumber, ...placed } = texts;
      const ids = [
        await place(placed, own),
        await place({ street: `Obchodná 12,${lineBreak}courtyard` }, own),
      ];
      await api().post(`/api/v2/logistics/orders/${ids[0]}/sent`).set(as(logisticsToken)).expect(200);
      await api()
        .patch(`/api/v2/logistics/orders/${ids[0]}`)
        .set(as(logisticsToken))
        .send({ serial_number: serialNumber })
        .expect(200);

      const rows = await csvOf('', own);
      expect(rows).toEqual((await listAll('', own)).map(expectedRow));
      expect(rows.map((row) => Number(row.order_id))).toEqual(ids.reverse());
      expect(rows[1]).toMatchObject(texts);
    },
  );

  it('guards a formula that follows a line break only as part of its quoted cell, never as a row of its own', async () => {
    const own = await fixtures.partner('SK');
    const serialNumber = "SN-1\n=cmd|' /C calc'!A0";
    const id = await place({ opening_hours: '\r=1+1', door: '\r\n@SUM(A1)' }, own);
    await api().post(`/api/v2/logistics/orders/${id}/sent`).set(as(logisticsToken)).expect(200);
    await api()
      .patch(`/api/v2/logistics/orders/${id}`)
      .set(as(logisticsToken))
      .send({ serial_number: serialNumber })
      .expect(200);

    const rows = await csvOf('', own);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      order_id: String(id),
      serial_number: serialNumber,
      opening_hours: "'\r=1+1",
      door: "'\r\n@SUM(A1)",
    });
  });

  it('refuses a tracking number with whitespace, which would split the space-separated tracking_numbers column', async () => {
    const own = await fixtures.partner('CZ');
    const id = await place({}, own);
    await api().post(`/api/v2/logistics/orders/${id}/sent`).set(as(logisticsToken)).expect(200);
    const refused = {
      message: 'Bad request.',
      errors: { tracking_number: ['The tracking number may not contain spaces or other whitespace.'] },
    };
    for (const number of ['PKG 1', ' PKG-1', 'PKG-1\t', 'PKG\n1', 'PKG\u00a01', 'PKG\u20281']) {
      const put = await api()
        .put(`/api/v2/logistics/orders/${id}/trackings/${encodeURIComponent(number)}`)
        .set(as(logisticsToken))
        .send({ delivery_date: '2026-11-22T10:00' });
      expect([number, put.status, put.body]).toEqual([number, 400, refused]);
      const status = await api()
        .post(`/api/v2/logistics/orders/${id}/detailed-statuses`)
        .set(as(logisticsToken))
        .send({ status: 'In transit', status_date: '2026-11-22T09:00', tracking_number: number });
      expect([number, status.status, status.body]).toEqual([number, 400, refused]);
    }
    const typed = await api()
      .post(`/api/v2/logistics/orders/${id}/detailed-statuses`)
      .set(as(logisticsToken))
      .send({ status: 'In transit', status_date: '2026-11-22T09:00', tracking_number: 5 })
      .expect(400);
    expect(typed.body.errors).toEqual({ tracking_number: ['The tracking number must be a string.'] });
    await api()
      .put(`/api/v2/logistics/orders/${id}/trackings/PKG-1`)
      .set(as(logisticsToken))
      .send({ delivery_date: '2026-11-22T10:00' })
      .expect(201);
    const [order] = await ndjsonOf('', own);
    expect(order.trackings.map((tracking) => tracking.tracking_number)).toEqual(['PKG-1']);
    expect(order.detailed_status).toBeNull();
    expect((await csvOf('', own))[0].tracking_numbers).toBe('PKG-1');
  });

  it('streams more orders than one batch, ties on created_at included, as NDJSON lines equal to the list items', async () => {
    const own = await fixtures.partner('PL');
    const original = await place({ city: 'Kraków' }, own);
    await copies(original, 1_234);
    await place({ order_type: 'RETURN', original_order_id: String(original) }, own);

    const response = await download('format=ndjson', own).expect(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    const today = new Date().toISOString().slice(0, 10);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="orders-${today}.ndjson"`);
    const lines = (response.body as string).trimEnd().split('\n');
    expect(lines).toHaveLength(1_236);
    const listed = await listAll('', own);
    expect(lines.map((line) => JSON.parse(line) as Item)).toEqual(listed);
    const ids = listed.map((item) => item.order_id);
    expect(new Set(ids).size).toBe(ids.length);
    const rows = await csvOf('', own);
    expect(rows.map((row) => Number(row.order_id))).toEqual(ids);
  });

  it('applies every filter of the list, and only to the company’s own orders', async () => {
    const own = await fixtures.partner('SK');
    const regular = await place({}, own);
    const exchange = await place({ order_type: 'EXCHANGE', original_order_id: String(regular) }, own);
    const test = await place({ test: true }, own);
    await api().post(`/api/v2/logistics/orders/${regular}/sent`).set(as(logisticsToken)).expect(200);
    await api()
      .put(`/api/v2/logistics/orders/${regular}/trackings/FILTER-1`)
      .set(as(logisticsToken))
      .send({ delivery_date: '2026-11-21T10:00' })
      .expect(201);
    await place({}, partner);
    const queries = [
      'order_type=EXCHANGE',
      'state=TEST',
      'tracking_number=FILTER-1',
      'delivered=true',
      'delivered=false',
      'delivered_from=2026-11-21&delivered_to=2026-11-21T23:59',
      `order_id=${exchange}`,
      `order_id=${test}&state=TEST`,
      'created_from=2000-01-01&created_to=2999-12-31',
      'updated_to=2000-01-01',
    ];
    for (const query of queries) {
      const listed = (await listAll(query, own)).map((item) => item.order_id);
      expect([query, (await ndjsonOf(query, own)).map((item) => item.order_id)]).toEqual([query, listed]);
      expect([query, (await csvOf(query, own)).map((row) => Number(row.order_id))]).toEqual([query, listed]);
    }
    expect((await ndjsonOf('delivered=true', own)).map((item) => item.order_id)).toEqual([regular]);
    expect((await csvOf('updated_to=2000-01-01', own)).length).toBe(0);
    expect((await download('format=csv&updated_to=2000-01-01', own).expect(200)).body).toBe(
      `${COLUMNS.join(',')}\r\n`,
    );
    expect((await download('format=ndjson&updated_to=2000-01-01', own).expect(200)).body).toBe('');
  });

  it('refuses bad filters exactly as the list does, and a missing or unknown format', async () => {
    const bad = 'created_from=2024-02-30&order_type=&delivered=maybe&order_id=12a';
    const listed = await api().get(`/api/v2/orders?${bad}`).set(as(partner.token)).expect(400);
    const exported = await api()
      .get(`/api/v2/orders/export?format=csv&${bad}`)
      .set(as(partner.token))
      .expect(400);
    expect(exported.body).toEqual(listed.body);
    expect(Object.keys(exported.body.errors as object).sort()).toEqual(
      ['created_from', 'delivered', 'order_id', 'order_type'].sort(),
    );
    for (const format of ['', 'xlsx', 'CSV']) {
      const refused = await api()
        .get(`/api/v2/orders/export?format=${format}`)
        .set(as(partner.token))
        .expect(400);
      expect(refused.body).toEqual({
        message: 'Bad request.',
        errors: { format: ['The format must be csv or ndjson.'] },
      });
    }
    // Twice: a query with no parameters is validated once per DTO and then trusted only if it passed.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const missing = await api().get('/api/v2/orders/export').set(as(partner.token)).expect(400);
      expect(missing.body.errors).toEqual({ format: ['The format field is required: csv or ndjson.'] });
    }
    await api().get('/api/v2/orders/export?format=csv').set(as(logisticsToken)).expect(403);
    await api().get('/api/v2/orders/export?format=csv').expect(401);
  });

  it('answers HEAD with the headers of the file and runs no export', async () => {
    const own = await fixtures.partner('SK');
    await place({}, own);
    const head = await api()
      .head('/api/v2/orders/export?format=csv&order_type=REGULAR')
      .set(as(own.token))
      .expect(200);
    expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(head.headers['content-disposition']).toBe(`attachment; filename="orders-${today}.csv"`);
    expect(head.text ?? '').toBe('');
    const ndjson = await api().head('/api/v2/orders/export?format=ndjson').set(as(own.token)).expect(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson');
    // A HEAD answer has no body, so it is read here without the document check of a JSON error body.
    const bad = await fetch(`${service.url}/api/v2/orders/export?format=csv&delivered=maybe`, {
      method: 'HEAD',
      headers: as(own.token),
    });
    expect(bad.status).toBe(400);
  });

  it('cuts off clients that stop reading, runs at most 2 exports per company across instances, and keeps serving the others', async () => {
    const stalling = await fixtures.partner('HU');
    await copies(await place({}, stalling), 20_000);
    const other = await fixtures.partner('SK');
    await place({}, other);
    const second = await startApp({ env: { ...SERVICE_ENV, DATABASE_URL: service.databaseUrl } });
    try {
      const timed = async (call: () => Promise<unknown>) => {
        const started = performance.now();
        await call();
        return Math.round(performance.now() - started);
      };
      const otherTenant = async () => {
        const latencies: number[] = [];
        for (let attempt = 0; attempt < 5; attempt += 1) {
          latencies.push(
            await timed(() => api().get('/api/v2/orders?per_page=25').set(as(other.token)).expect(200)),
            await timed(() => api().get('/health/ready').expect(200)),
          );
        }
        return Math.max(...latencies);
      };
      const heldSlots = async () => (await service.db.query(HELD_SLOTS)).rows[0].count as number;
      const idle = { rssMb: rssMb(), slowestMs: await otherTenant() };

      const stalledAt = Date.now();
      const stalled = [
        await stalledExport(service.url, stalling.token),
        await stalledExport(second.url, stalling.token),
      ];
      await eventually(
        async () => (await heldSlots()) === 2,
        () => 'The stalled exports never took their slots',
        10_000,
      );
      for (const instance of [service, second]) {
        const refused = await request(instance.url)
          .get('/api/v2/orders/export?format=csv')
          .set(as(stalling.token))
          .expect(429);
        expect(refused.body).toEqual({
          message: `Too many requests. See the API documentation at ${instance.url}/api/docs.`,
        });
        expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        expect(refused.headers['x-ratelimit-remaining']).toBeDefined();
      }
      await api().head('/api/v2/orders/export?format=csv').set(as(stalling.token)).expect(200);
      const held = {
        otherExportMs: await timed(async () => expect((await csvOf('', other)).length).toBe(1)),
        slowestMs: await otherTenant(),
        rssMb: rssMb(),
      };
      expect(await heldSlots()).toBe(2);
      expect(held.otherExportMs).toBeLessThan(2_000);
      expect(held.slowestMs).toBeLessThan(2_000);
      expect(held.rssMb - idle.rssMb).toBeLessThan(64);

      await eventually(
        async () => (await heldSlots()) === 0,
        () => `The stalled exports still hold their slots ${Date.now() - stalledAt} ms after they started`,
        STALL_MS + 15_000,
      );
      const cutAfterMs = Date.now() - stalledAt;
      expect(cutAfterMs).toBeGreaterThanOrEqual(STALL_MS);
      for (const client of stalled) expect((await readToEnd(client)).whole).toBe(false);
      const lines = (await ndjsonOf('', stalling)).length;
      expect(lines).toBe(20_001);
      console.info('Stalled exports (EXPORT_STALL_TIMEOUT_MS=%d):', STALL_MS, {
        idle,
        held,
        cutAfterMs,
      });
      expect(service.logs().filter((line) => line.msg === 'Unhandled error')).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('refuses an EXPORT_STALL_TIMEOUT_MS that is not a number of milliseconds', async () => {
    const { code, stderr } = await startServiceExpectingFailure({
      DATABASE_URL: 'postgres://127.0.0.1:1/unused',
      EXPORT_STALL_TIMEOUT_MS: '30s',
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Invalid environment variable EXPORT_STALL_TIMEOUT_MS: must be an integer from 100 to 300000 (got "30s").',
    );
  });

  it('stops reading and holds no connection once the client goes away', async () => {
    const own = await fixtures.partner('HU');
    await copies(await place({}, own), 20_000);
    const exporting = `SELECT pid, state, query FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%position_created_at%'
        AND state <> 'idle'`;
    expect((await abortAfterFirstChunk(service.url, own.token)).status).toBe(200);
    // At most the batch being read when the client left finishes; after it, no export statement runs again.
    await eventually(
      async () => (await service.db.query(exporting)).rows.length === 0,
      () => 'The export query is still running after the client went away',
      10_000,
    );
    for (const until = Date.now() + 1_500; Date.now() < until;) {
      expect((await service.db.query(exporting)).rows).toEqual([]);
    }
    expect((await service.db.query(HELD_SLOTS)).rows[0].count).toBe(0);
    const stuck = await service.db.query(
      `SELECT count(*)::int AS count FROM pg_stat_activity
       WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    expect(stuck.rows[0].count).toBe(0);
    await api().get('/api/v2/orders?per_page=1').set(as(own.token)).expect(200);
    const logged = service.logs().filter((line) => line.msg === 'Unhandled error');
    expect(logged).toEqual([]);
  });
});
