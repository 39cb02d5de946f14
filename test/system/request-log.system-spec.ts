import { once } from 'node:events';
import request from 'supertest';
import { startService } from '../harness/service';

/**
 * The request log is written asynchronously (a request never waits for stdout): lines still buffered when the
 * service stops must reach stdout all the same, one per request. The statements' text is on them only with
 * LOG_SQL (test/sql-snapshots.e2e-spec.ts).
 */
describe('request log', () => {
  it('writes one line per request and loses none when the service stops right after answering', async () => {
    const service = await startService();
    const ids = Array.from({ length: 300 }, (_, index) => `flush-check-${index}`);
    await Promise.all(
      ids.map((id) => request(service.url).get('/health/live').set('X-Request-Id', id).expect(200)),
    );
    expect(await service.stop()).toBe(0);
    const stdout = service.process.stdout!;
    if (!stdout.closed) await once(stdout, 'close');
    const logged = service
      .logs()
      .filter((line) => line.msg === 'request completed')
      .map((line) => line.requestId as string);
    expect(logged.filter((id) => id.startsWith('flush-check-')).sort()).toEqual([...ids].sort());
    // Without LOG_SQL no line carries statements, and the webhook dispatcher's iterations write none.
    expect(service.logs().filter((line) => 'sql' in line || 'job' in line)).toEqual([]);
  });
});
