const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs that mean "the database is not there right now", not "your statement is wrong"; 57014 is a
 * statement cancelled by DATABASE_STATEMENT_TIMEOUT_MS.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
  'Query read timeout',
  'the database system is starting up',
  'the database system is shutting down',
  // TypeORM, once the connection under a transaction has died (the server gone mid-transaction): the rest of
  // the transaction, its COMMIT included, finds its query runner released; the server rolled it back.
  'Query runner already released',
  'Database connection provided by a query runner was already released',
];

/** True when an error (or the driver error a TypeORM error wraps) means the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, driverError, cause } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
  };
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))
  ) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment))) {
    return true;
  }
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))
  ) {
    return true;
  }
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
