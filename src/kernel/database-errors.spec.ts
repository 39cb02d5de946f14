import { isDatabaseUnavailable } from './database-errors';

describe('isDatabaseUnavailable', () => {
  it('recognises a refused connection, also inside an AggregateError', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([refused]))).toBe(true);
  });

  it('recognises a pool timeout, a server shutdown and a driver error wrapped by TypeORM', () => {
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable({ message: 'x', driverError: { code: '57P01' } })).toBe(true);
    expect(isDatabaseUnavailable({ code: '08006' })).toBe(true);
  });

  it('recognises a transaction whose connection died under it (TypeORM released its query runner)', () => {
    expect(
      isDatabaseUnavailable(new Error('Query runner already released. Cannot run queries anymore.')),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        new Error(
          'Database connection provided by a query runner was already released, cannot continue to use its querying methods anymore.',
        ),
      ),
    ).toBe(true);
  });

  it('does not take a faulty statement or a constraint violation for an outage', () => {
    expect(isDatabaseUnavailable({ code: '23505', message: 'duplicate key' })).toBe(false);
    expect(isDatabaseUnavailable({ code: '42P01', message: 'relation does not exist' })).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

describe('isDatabaseUnavailable: bounded waits (DATABASE_STATEMENT_TIMEOUT_MS)', () => {
  it('takes a statement cancelled by the timeout and an answer overdue on a stalled link for an outage', () => {
    expect(isDatabaseUnavailable({ message: 'x', driverError: { code: '57014' } })).toBe(true);
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
  });
});
