import { RestaurantOrdersError } from '../errors.js';

/** Where the tool reads its settings and writes its lines: the process's own in main.ts, a test's in a spec. */
export interface CliIo {
  env: Record<string, string | undefined>;
  /** One line of output (no newline). */
  out(line: string): void;
  /** One line of diagnostics (no newline). */
  err(line: string): void;
  /** Aborted by Ctrl-C (SIGINT) or SIGTERM: a command that follows something stops quietly. */
  signal: AbortSignal;
}

/** Bad input or a failure the user must act on: the tool prints its message as one line and exits 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/**
 * One line for a failed call: what the API answered (status, message, the failing fields) and the request id to
 * quote, or why no answer came. Never the token: the SDK's messages carry neither headers nor the request's body.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (!(error instanceof RestaurantOrdersError))
    return error instanceof Error ? error.message : String(error);
  const fields = Object.entries((typeof error.body === 'object' && error.body.errors) || {}).map(
    ([field, messages]) => `${field}: ${([] as unknown[]).concat(messages).join(' ')}`,
  );
  const detail = fields.length > 0 ? ` (${fields.join('; ')})` : '';
  const requestId = error.requestId ? ` [request id ${error.requestId}]` : '';
  const hint = error.status === 401 ? ': RESTAURANT_ORDERS_TOKEN is not a valid partner token' : '';
  return `${error.message}${hint}${detail}${requestId}`;
}
