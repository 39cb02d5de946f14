import { randomUUID } from 'node:crypto';
import type { Level, Logger } from 'pino';
import { currentRequest, runInJobContext } from '../http/request-context';

/** The request's child logger inside a request (made on its first line), the root elsewhere. */
function currentLogger(root: Logger): Logger {
  const request = currentRequest();
  if (!request) return root;
  request.log ??= root.child({ requestId: request.id });
  return request.log;
}

export type LogFields = Record<string, unknown>;

/**
 * Runs a background job's iteration in a context of its own and ends it with one line, as a request's: `job`,
 * `requestId` (the lines its services write carry it too), duration, `dbQueries` and `sql`, the statements'
 * text (never their parameters). Written when the iteration fails too.
 */
export async function runLoggedJob<T>(root: Logger, job: string, work: () => Promise<T>): Promise<T> {
  const context = { id: randomUUID(), dbQueries: 0, sql: [] as string[] };
  const startedAt = Date.now();
  try {
    return await runInJobContext(context, work);
  } finally {
    root.info(
      {
        job,
        requestId: context.id,
        durationMs: Date.now() - startedAt,
        dbQueries: context.dbQueries,
        sql: context.sql,
      },
      'job completed',
    );
  }
}

/** A service's line: its context (the class name, when set), then its fields, then the message. */
export function writeServiceLine(
  root: Logger,
  level: Level,
  context: string,
  fields: LogFields,
  message: string,
): void {
  currentLogger(root)[level](context ? { context, ...fields } : fields, message);
}

/**
 * A framework message as a pino line: Nest's last optional parameter is the context; an Error becomes `err`;
 * an object message is merged into the line; `error(message, stack, context)` from Nest's exception handlers
 * becomes an `err` with that stack; the remaining parameters are pino's format arguments.
 */
export function writeFrameworkLine(
  root: Logger,
  level: Level,
  message: unknown,
  optionalParams: unknown[],
): void {
  const logger = currentLogger(root);
  const emit = logger[level].bind<(line: object, ...args: unknown[]) => void>(logger);
  const line: LogFields = {};
  const params = optionalParams.slice(0, -1);
  if (optionalParams.length > 0) line.context = optionalParams[optionalParams.length - 1];
  if (message instanceof Error) {
    line.err = message;
    emit(line, ...params);
  } else if (typeof message === 'object') {
    emit(Object.assign(line, message), ...params);
  } else if (level === 'error' && typeof message === 'string' && isStackOnly(params)) {
    const err = new Error(message);
    err.stack = params[0];
    emit({ ...line, err });
  } else {
    emit(line, message, ...params);
  }
}

function isStackOnly(params: unknown[]): params is [string] {
  return params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0]);
}
