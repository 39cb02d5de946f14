import { pino } from 'pino';
import { REDACTED_PATHS } from './logger.options';
import { runInRequestContext } from '../http/request-context';
import { writeFrameworkLine, writeServiceLine } from './log-lines';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const root = pino(
    { level: 'trace', base: null, timestamp: false, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { root, lines, raw };
}

describe('framework lines (FrameworkLogger)', () => {
  it("puts Nest's last parameter in context and the message in msg, at pino's level for Nest's", () => {
    const { root, lines } = capture();
    writeFrameworkLine(root, 'info', 'Starting Nest application...', ['NestFactory']);
    writeFrameworkLine(root, 'trace', 'verbose detail', ['RouterExplorer']);
    writeFrameworkLine(root, 'warn', 'no context', []);
    expect(lines).toEqual([
      { level: 30, context: 'NestFactory', msg: 'Starting Nest application...' },
      { level: 10, context: 'RouterExplorer', msg: 'verbose detail' },
      { level: 40, msg: 'no context' },
    ]);
  });

  it('merges an object message into the line, its msg included', () => {
    const { root, lines } = capture();
    writeFrameworkLine(root, 'info', { event: 'listening', port: 3000, msg: 'Listening on port 3000' }, []);
    expect(lines).toEqual([{ level: 30, event: 'listening', port: 3000, msg: 'Listening on port 3000' }]);
  });

  it("turns an exception handler's (message, stack, context) into an err carrying that stack", () => {
    const { root, lines } = capture();
    const stack = 'Error: boom\n    at handler (app.js:1:1)';
    writeFrameworkLine(root, 'error', 'boom', [stack, 'ExceptionsHandler']);
    expect(lines).toEqual([
      {
        level: 50,
        context: 'ExceptionsHandler',
        err: { type: 'Error', message: 'boom', stack },
        msg: 'boom',
      },
    ]);
  });
});

describe('service lines (ServiceLogger)', () => {
  it('start with the context, then the fields and the message', () => {
    const { root, raw } = capture();
    writeServiceLine(
      root,
      'info',
      'IdempotencyCleanup',
      { event: 'idempotency_keys_expired', deleted: 3 },
      'Expired',
    );
    writeServiceLine(root, 'warn', '', { attempt: 1 }, 'No context');
    expect(raw.map((line) => line.trim())).toEqual([
      '{"level":30,"context":"IdempotencyCleanup","event":"idempotency_keys_expired","deleted":3,"msg":"Expired"}',
      '{"level":40,"attempt":1,"msg":"No context"}',
    ]);
  });

  it("carry the request's bindings inside a request, across awaits, and not outside it", async () => {
    const { root, lines } = capture();
    await new Promise<void>((resolve) => {
      runInRequestContext({ id: 'req-7', dbQueries: 0 }, () => {
        void (async () => {
          await new Promise((wait) => setTimeout(wait, 1));
          writeServiceLine(root, 'warn', 'TokensService', { tokenId: 4 }, 'Could not record token use');
          writeFrameworkLine(root, 'error', 'late', ['ExceptionsHandler']);
          resolve();
        })();
      });
    });
    writeServiceLine(root, 'info', 'WebhookDispatcher', {}, 'Outside');
    expect(lines.map((line) => line.requestId)).toEqual(['req-7', 'req-7', undefined]);
  });

  it('redact what could be secret: statement parameters, row details, tokens', () => {
    const { root, raw } = capture();
    const failure = Object.assign(new Error('insert failed'), {
      parameters: ['Pa55word-never-logged'],
      detail: 'Failing row contains (Pa55word-never-logged)',
    });
    writeServiceLine(
      root,
      'error',
      'ApiExceptionFilter',
      { err: failure, token: 'roa_secret' },
      'Unhandled error',
    );
    writeFrameworkLine(root, 'error', failure, ['ExceptionsHandler']);
    expect(raw.join('')).not.toMatch(/Pa55word|roa_secret/);
    expect(raw.join('')).toContain('"parameters":"[redacted]"');
  });
});
