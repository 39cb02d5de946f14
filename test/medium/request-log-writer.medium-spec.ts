import { Pool } from 'pg';
import { fromDist, startApp, type TestApp } from '../harness/app';
import { eventually } from '../harness/eventually';

const { RequestEnds } = fromDist<typeof import('../../src/platform/http/request-ends')>(
  'platform/http/request-ends',
);
const { RequestLogWriter, BATCH_ROWS } = fromDist<typeof import('../../src/request-log/request-log.writer')>(
  'request-log/request-log.writer',
);
type EndedRequest = import('../../src/platform/http/request-ends').EndedRequest;

const DAY_MS = 86_400_000;

/** A request of company 1's token 1 that ended, as the request log middleware reports it. */
function ended(requestId: string, startedAt = Date.now()): EndedRequest {
  return {
    request: {
      id: requestId,
      method: 'GET',
      headers: {},
      dbQueries: 0,
      user: { tokenId: 1, role: 'partner', userName: 'medium', companyId: 1, readOnly: false },
    } as unknown as EndedRequest['request'],
    status: 200,
    startedAt,
    durationMs: 3,
    route: '/api/v2/product',
    path: '/api/v2/product',
  };
}

/**
 * The request log's writer (RequestLogWriter) on a real PostgreSQL: the rows of the requests that ended are
 * buffered and written in batches (a full batch at once, the rest at the interval), the partition of each day they
 * fall in created as needed, kept through a failed write, and written when the application stops.
 */
describe('the request log writer: batched writes off the request path', () => {
  let app: TestApp;
  let ends: InstanceType<typeof RequestEnds>;
  const count = async (prefix: string, db: Pool = app.db) =>
    Number(
      (await db.query('SELECT count(*) AS n FROM request_log WHERE request_id LIKE $1', [`${prefix}%`]))
        .rows[0].n,
    );

  beforeAll(async () => {
    // The interval is long: only a full batch, an explicit flush or the stop writes.
    app = await startApp({ env: { REQUEST_LOG_FLUSH_MS: '60000', WEBHOOK_DISPATCHER: 'false' } });
    ends = app.get(RequestEnds);
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('writes a full batch at once, without waiting for the interval, and holds a smaller one', async () => {
    for (let index = 0; index < BATCH_ROWS; index += 1) ends.emit(ended(`batch-${index}`));
    await eventually(
      async () => (await count('batch-')) === BATCH_ROWS,
      () => 'the full batch was not written at once',
    );
    for (let index = 0; index < 10; index += 1) ends.emit(ended(`batch-more-${index}`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count('batch-')).toBe(BATCH_ROWS);
    await app.get(RequestLogWriter).flush();
    expect(await count('batch-')).toBe(BATCH_ROWS + 10);
  });

  it("creates the partition of each day its rows fall in: yesterday's request is written beside today's", async () => {
    const yesterday = Date.now() - DAY_MS;
    ends.emit(ended('days-yesterday', yesterday));
    ends.emit(ended('days-today'));
    await app.get(RequestLogWriter).flush();
    const rows = await app.db.query(
      `SELECT request_id, tableoid::regclass::text AS partition FROM request_log
       WHERE request_id LIKE 'days-%' ORDER BY request_id DESC`,
    );
    const day = (at: number) => `request_log_${new Date(at).toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(rows.rows).toEqual([
      { request_id: 'days-yesterday', partition: day(yesterday) },
      { request_id: 'days-today', partition: day(Date.now()) },
    ]);
  });

  it('keeps the rows of a write the database refused, and writes them with the next', async () => {
    await app.db.query('ALTER TABLE request_log RENAME TO request_log_away');
    try {
      ends.emit(ended('refused-1'));
      await app.get(RequestLogWriter).flush();
      expect(
        app.logs().some((line) => line.msg === 'Request log not written: kept in memory for the next flush'),
      ).toBe(true);
    } finally {
      await app.db.query('ALTER TABLE request_log_away RENAME TO request_log');
    }
    ends.emit(ended('refused-2'));
    await app.get(RequestLogWriter).flush();
    expect(await count('refused-')).toBe(2);
  });

  it('writes what it holds when the application stops', async () => {
    const other = await startApp({ env: { REQUEST_LOG_FLUSH_MS: '60000', WEBHOOK_DISPATCHER: 'false' } });
    const db = new Pool({ connectionString: other.databaseUrl, max: 1 });
    try {
      other.get(RequestEnds).emit(ended('stopping-1'));
      other.get(RequestEnds).emit(ended('stopping-2'));
      expect(await count('stopping-', db)).toBe(0);
      await other.stop();
      expect(await count('stopping-', db)).toBe(2);
    } finally {
      await db.end();
    }
  });

  it('records nothing with REQUEST_LOG=false', async () => {
    const off = await startApp({ env: { REQUEST_LOG: 'false', WEBHOOK_DISPATCHER: 'false' } });
    try {
      off.get(RequestEnds).emit(ended('off-1'));
      await off.get(RequestLogWriter).flush();
      expect(await count('off-', off.db)).toBe(0);
    } finally {
      await off.stop();
    }
  });
});
