import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { RestaurantOrdersClient } from '../client.js';
import { delay } from '../delay.js';
import { RestaurantOrdersError } from '../errors.js';
import { SDK_VERSION } from '../version.js';
import type { WebhookEvent } from '../webhooks.js';
import { CliError, type CliIo, describeFailure } from './io.js';
import type { ListenOptions } from './program.js';

/** What listen keeps between runs: the secret the partner's receiver knows, and where the feed was left. */
interface ListenState {
  secret: string;
  /** The last event forwarded (or passed over by --events): the next run starts after it. */
  after?: string;
}

/** How long a forwarded event waits for the local receiver's answer. */
const FORWARD_TIMEOUT_MS = 10_000;
/** The longest wait before sending an event again to a receiver that did not answer. */
const MAX_FORWARD_WAIT_MS = 10_000;
/** The wait before asking the feed again after it failed in a way that passes (the service restarting, a 429). */
const FEED_RETRY_MS = 5_000;

/**
 * `listen --forward-to <url>`: follows the company's events feed and POSTs each event to a local receiver
 * signed as a webhook delivery is (Standard Webhooks headers, HMAC-SHA256 with a `whsec_` secret of its own), so
 * the receiver's verifier works unchanged with no public URL. The secret and the last event forwarded are kept
 * in a state file: a restart resumes after that event with the same secret. A first run starts at the end of the
 * feed (only new events are forwarded). An event is forwarded until the receiver answers (any status counts,
 * as a line on stdout); a receiver that does not answer gets it again, so none is skipped.
 */
export async function listen(
  client: RestaurantOrdersClient,
  io: CliIo,
  options: ListenOptions & { serviceUrl: string; token: string },
): Promise<void> {
  const { signal } = io;
  const statePath = options.stateFile ?? defaultStatePath(io.env, options.serviceUrl, options.token);
  const state = (await readState(statePath)) ?? { secret: `whsec_${randomBytes(32).toString('base64')}` };
  await saveState(statePath, state);
  io.out(`Forwarding your events to ${options.forwardTo}`);
  io.out(`Webhook signing secret: ${state.secret} (give it to your receiver's verifier)`);
  io.out(`State: ${statePath}`);
  if (state.after === undefined) {
    let passed = 0;
    for await (const event of client.events({ signal })) {
      state.after = event.id;
      passed += 1;
    }
    if (signal.aborted) return;
    await saveState(statePath, state);
    io.out(
      state.after === undefined
        ? 'Your feed is empty: waiting for your first event.'
        : `Starting after your latest event, ${state.after} (${passed} earlier ${passed === 1 ? 'event is' : 'events are'} not forwarded).`,
    );
  } else {
    io.out(`Resuming after ${state.after}, the last event forwarded.`);
  }
  io.out(`Ready. Ctrl-C stops.`);
  const forward = forwarder(io, options.forwardTo, new Webhook(state.secret));
  while (!signal.aborted) {
    try {
      const feed = client.events({
        after: state.after,
        follow: true,
        pollIntervalMs: options.pollInterval,
        signal,
      });
      for await (const event of feed) {
        if ((!options.events || options.events.includes(event.type)) && !(await forward(event))) return;
        state.after = event.id;
        await saveState(statePath, state);
      }
    } catch (error) {
      if (!(error instanceof RestaurantOrdersError)) throw error;
      if (error.status === 400 && typeof error.body === 'object' && error.body.errors?.after) {
        throw new CliError(
          `The last forwarded event, ${state.after}, is not in your feed: delete ${statePath} to start at its end.`,
        );
      }
      if (error.kind === 'response' && error.status !== 429 && (error.status ?? 0) < 500) throw error;
      io.err(`The feed failed: ${describeFailure(error)}; asking again in ${FEED_RETRY_MS / 1000} s.`);
      await delay(FEED_RETRY_MS, signal).catch(() => undefined);
    }
  }
}

/**
 * Sends one event to the receiver, signed now; resolves true once the receiver answered (a line with its status),
 * false when the tool is stopping. A receiver that does not answer (not started yet, refused, timed out) gets the
 * event again after 1, 2, 4, ... up to 10 s.
 */
function forwarder(io: CliIo, url: string, signer: Webhook) {
  const { signal } = io;
  return async (event: WebhookEvent): Promise<boolean> => {
    const body = JSON.stringify(event);
    for (let attempt = 0; !signal.aborted; attempt += 1) {
      const now = new Date();
      const started = performance.now();
      try {
        const response = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
          headers: {
            'content-type': 'application/json',
            'user-agent': `restaurant-orders-cli/${SDK_VERSION}`,
            'webhook-id': event.id,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signer.sign(event.id, now, body),
          },
          body,
        });
        await response.arrayBuffer();
        const took = Math.round(performance.now() - started);
        io.out(
          `${event.timestamp}  ${event.type}  ${event.id}  ${subjectOf(event)}  -> POST ${url} [${response.status}] ${took} ms`,
        );
        return true;
      } catch (error) {
        if (signal.aborted) return false;
        const waitMs = Math.min(1000 * 2 ** attempt, MAX_FORWARD_WAIT_MS);
        io.err(
          `${event.id}: ${url} did not answer (${reason(error)}); sending it again in ${waitMs / 1000} s.`,
        );
        await delay(waitMs, signal).catch(() => undefined);
      }
    }
    return false;
  };
}

/** What fetch's "fetch failed" hides: the system error's code (ECONNREFUSED), or the abort's name. */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : String(error);
}

/**
 * Under $XDG_STATE_HOME (else ~/.local/state), one file per service and token: two companies' feeds never share
 * a position. The token only enters a hash, never the file or its name in clear.
 */
function defaultStatePath(env: CliIo['env'], serviceUrl: string, token: string): string {
  const root = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  const key = createHash('sha256').update(`${serviceUrl}\n${token}`).digest('hex').slice(0, 16);
  return join(root, 'restaurant-orders', `listen-${key}.json`);
}

async function readState(path: string): Promise<ListenState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`Cannot read the state file ${path}: ${(error as Error).message}`);
  }
  const state = parseState(text);
  if (!state) throw new CliError(`The state file ${path} is not listen's: delete it to start over.`);
  return state;
}

function parseState(text: string): ListenState | undefined {
  try {
    const value = JSON.parse(text) as Partial<ListenState>;
    if (typeof value.secret !== 'string' || !value.secret.startsWith('whsec_')) return undefined;
    if (value.after !== undefined && typeof value.after !== 'string') return undefined;
    return { secret: value.secret, after: value.after };
  } catch {
    return undefined;
  }
}

/** Written whole and renamed into place, readable by its owner only (it holds a secret). */
async function saveState(path: string, state: ListenState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const next = `${path}.${process.pid}.tmp`;
  await writeFile(next, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  await rename(next, path);
}

/** What an event is about, for its line: the order, or the import. */
function subjectOf(event: WebhookEvent): string {
  return 'order_id' in event.data ? `order ${event.data.order_id}` : `import ${event.data.import_id}`;
}
