import { pino } from 'pino';
import { countQuery, QueryCountingLogger } from '../database/query-counter';
import { runLoggedJob, writeServiceLine } from './log-lines';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const root = pino(
    { level: 'info', base: null, timestamp: false },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { root, lines };
}

describe('a background job iteration with LOG_SQL (runLoggedJob)', () => {
  it('writes one line with its statements’ text, and the lines logged inside carry its id', async () => {
    const { root, lines } = capture();
    const result = await runLoggedJob(root, 'webhook-dispatch', async () => {
      countQuery('SELECT 1');
      await Promise.resolve();
      new QueryCountingLogger().logQuery({ text: 'SELECT $1::int' });
      writeServiceLine(root, 'info', 'Dispatcher', { event: 'attempt' }, 'Webhook attempt');
      return 7;
    });
    expect(result).toBe(7);
    const [service, job] = lines;
    expect(job).toMatchObject({
      msg: 'job completed',
      job: 'webhook-dispatch',
      dbQueries: 2,
      sql: ['SELECT 1', 'SELECT $1::int'],
    });
    expect(service).toMatchObject({ msg: 'Webhook attempt', requestId: job.requestId });
  });

  it('writes the line of a failed iteration too', async () => {
    const { root, lines } = capture();
    await expect(
      runLoggedJob(root, 'webhook-dispatch', () => {
        countQuery('SELECT 1');
        return Promise.reject(new Error('database away'));
      }),
    ).rejects.toThrow('database away');
    expect(lines).toMatchObject([{ job: 'webhook-dispatch', dbQueries: 1, sql: ['SELECT 1'] }]);
  });
});
