/**
 * A reason the service cannot start that the operator can fix (a bad variable, a port taken, a database out of
 * reach): its message alone is printed, one line of what and what to do, without a stack and without the value
 * of a secret. `variable` names the setting at fault, when one is.
 */
export class StartupError extends Error {
  override name = 'StartupError';

  constructor(
    message: string,
    readonly variable?: string,
  ) {
    super(message);
  }
}

/** pino's number for `fatal`: the line reads like every other log line of the service. */
const PINO_FATAL = 60;

/**
 * The one line a failed start leaves on stderr (CONTRACT §8): the operator's message as it is, or in production
 * a JSON object a log collector reads. Anything else that stopped the start gives its message only, no stack.
 */
export function startupFailureLine(error: unknown, production: boolean): string {
  const known = error instanceof StartupError;
  const message = known
    ? error.message.split('\n').join(' ')
    : `The service could not start: ${error instanceof Error ? error.message : String(error)}`.replace(
        /\s*\n\s*/g,
        ' ',
      );
  if (!production) return message;
  return JSON.stringify({
    level: PINO_FATAL,
    time: Date.now(),
    event: 'startup_failed',
    ...(known && error.variable ? { variable: error.variable } : {}),
    msg: message,
  });
}
