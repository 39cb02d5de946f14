import { randomUUID } from 'node:crypto';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Middleware } from 'openapi-fetch';
import { createRestaurantOrdersClient } from '../client.js';
import { SDK_VERSION } from '../version.js';
import { EVENT_TYPES, eventType, eventTypes, UNTRIGGERABLE_HELP } from './event-types.js';
import { CliError, type CliIo, describeFailure } from './io.js';
import { listen } from './listen.js';
import { POLL_REQUEST_ID_PREFIX, tailRequests } from './logs.js';
import { type ImportOptions, importFile, SOME_LINES_REFUSED } from './import.js';
import { trigger } from './trigger.js';

/** The tool's name, as the package's `bin` installs it. */
export const CLI_NAME = 'restaurant-orders';
/** The environment variable that holds the partner token: never an argument, so it stays out of shell history. */
export const TOKEN_VARIABLE = 'RESTAURANT_ORDERS_TOKEN';
/** The environment variable that holds the service's URL, unless --url gives one. */
export const URL_VARIABLE = 'RESTAURANT_ORDERS_URL';
const DEFAULT_URL = 'http://localhost:3000';

/** An http(s) URL, for commander's option parsing. */
function httpUrl(value: string): string {
  const url = parseHttpUrl(value);
  if (url === undefined)
    throw new InvalidArgumentError('Not an http(s) URL (http://localhost:4242/webhooks, say).');
  return url;
}

/** The service's URL from the environment, named in the message when it is not one. */
function serviceUrl(value: string): string {
  const url = parseHttpUrl(value);
  if (url === undefined) throw new CliError(`${URL_VARIABLE} is not an http(s) URL.`);
  return url;
}

function parseHttpUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** What a command with subcommands does when none or an unknown one is named: one line, not its whole help. */
const noSubcommand = (names: string) => (name: string | undefined) => {
  throw new CliError(
    name === undefined
      ? `Name a command: ${names} (--help lists them).`
      : `Unknown command "${name}": use ${names} (--help lists them).`,
  );
};

/** Requests a command makes in the background carry a request id that `logs tail` leaves out. */
const namedAsPolls: Middleware = {
  onRequest: ({ request }) => {
    request.headers.set('X-Request-Id', `${POLL_REQUEST_ID_PREFIX}${randomUUID()}`);
    return request;
  },
};

/** A whole number of milliseconds, at least 100, for commander's option parsing. */
function milliseconds(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 100)
    throw new InvalidArgumentError('A whole number of milliseconds, 100 or more.');
  return number;
}

/** Commander's parsers report bad input as InvalidArgumentError: the tool's own checks do the same. */
const parsed =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      if (error instanceof CliError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };

/**
 * Runs the tool with `argv` (the arguments after the program's name) and returns its exit code: 0, or 1 after
 * one line on stderr naming what was wrong. `--help` of the tool and of each command prints their usage.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = new Command(CLI_NAME);
  const urlOption = () =>
    new Option('--url <url>', `the service's URL (default: $${URL_VARIABLE}, else ${DEFAULT_URL})`).argParser(
      httpUrl,
    );
  /** The client of a command: the partner token from the environment, never from an argument. */
  const clientFor = (options: { url?: string }, { polls = false } = {}) => {
    const token = io.env[TOKEN_VARIABLE];
    if (!token) throw new CliError(`${TOKEN_VARIABLE} is not set: export your partner token in it.`);
    const url = options.url ?? serviceUrl(io.env[URL_VARIABLE] || DEFAULT_URL);
    const client = createRestaurantOrdersClient(url, token);
    if (polls) client.use(namedAsPolls);
    return { client, url, token };
  };

  program
    .description(
      'The Restaurant Orders API from your terminal: webhooks on your machine, events on demand, your request log.',
    )
    .version(SDK_VERSION)
    .addHelpText('after', `\nThe partner token is read from $${TOKEN_VARIABLE}.`)
    .usage('[options] <command>')
    .argument('[command]')
    .action(noSubcommand('listen, trigger, logs tail or import'))
    .showSuggestionAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      outputError: (text, write) => write(`${CLI_NAME}: ${text.replace(/^error: /, '').trim()}`),
    });

  program
    .command('listen')
    .description(
      'Follow your events feed and forward each event to a local URL, signed as a webhook with a secret it prints.',
    )
    .requiredOption(
      '--forward-to <url>',
      'where to POST each event (http://localhost:4242/webhooks)',
      httpUrl,
    )
    .option(
      '--events <types>',
      `only these event types, separated by commas (${EVENT_TYPES.join(', ')})`,
      parsed(eventTypes),
    )
    .option('--state-file <path>', 'where the signing secret and the last forwarded event are kept')
    .option(
      '--poll-interval <ms>',
      'the wait between two requests at the end of the feed',
      milliseconds,
      2000,
    )
    .addOption(urlOption())
    .action(async (options: ListenOptions) => {
      const { client, url, token } = clientFor(options, { polls: true });
      await listen(client, io, { ...options, serviceUrl: url, token });
    });

  program
    .command('trigger')
    .description(
      'Make an event happen for real: a new TEST order, moved through the sandbox until the event fires.',
    )
    .argument('<event-type>', `one of ${EVENT_TYPES.join(', ')}`, parsed(eventType))
    .option(
      '--product <id>',
      'the product of the test order (default: your first product)',
      parsed(positiveId),
    )
    .addOption(urlOption())
    .addHelpText('after', UNTRIGGERABLE_HELP)
    .action(async (type: ReturnType<typeof eventType>, options: { url?: string; product?: number }) => {
      await trigger(clientFor(options).client, io, type, options.product);
    });

  const logs = program
    .command('logs')
    .description('Your request log.')
    .usage('<command>')
    .argument('[command]')
    .action(noSubcommand('logs tail'));
  logs
    .command('tail')
    .description('Follow your request log: one line per request your tokens make, as they are made.')
    .option('--status <status>', 'only this status: a code (404) or a class (4xx, 5xx)', parsed(statusFilter))
    .option('--route <route>', 'only this route template (/api/v2/order/:id) or exact path (/api/v2/order/7)')
    .option('--token-id <id>', "only this token's requests", parsed(positiveId))
    .option('--poll-interval <ms>', 'the wait between two requests for new entries', milliseconds, 2000)
    .addOption(urlOption())
    .action(async (options: TailOptions) => {
      await tailRequests(clientFor(options, { polls: true }).client, io, options);
    });

  let exitCode = 0;
  program
    .command('import')
    .description(
      "Upload a bulk import (CSV with the export's columns, or NDJSON: one order a line) and follow it; each " +
        `refused line is shown with its errors. Exits 0 when every line was placed, ${SOME_LINES_REFUSED} when some were refused.`,
    )
    .argument('<file>', 'the file: .csv, or .ndjson / .jsonl (else --format)')
    .addOption(new Option('--format <format>', "the file's format").choices(['csv', 'ndjson']))
    .option('--dry-run', 'check every line and place nothing')
    .option('--idempotency-key <key>', 'upload again under the same key: the same import, never a second')
    .option('--poll-interval <ms>', 'the wait between two looks at the import', milliseconds, 1000)
    .addOption(urlOption())
    .action(async (file: string, options: ImportOptions) => {
      exitCode = await importFile(clientFor(options).client, io, file, options);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.err(`${CLI_NAME}: ${describeFailure(error).replaceAll('\n', ' ')}`);
    return 1;
  }
}

export interface ListenOptions {
  forwardTo: string;
  events?: ReturnType<typeof eventTypes>;
  stateFile?: string;
  pollInterval: number;
  url?: string;
}

export interface TailOptions {
  status?: string;
  route?: string;
  tokenId?: number;
  pollInterval: number;
  url?: string;
}

/** A positive id. */
function positiveId(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new CliError('Not an id (a whole number, 1 or more).');
  return Number(value);
}

/** A status filter as the request log takes it: a code or a class of codes. */
function statusFilter(value: string): string {
  if (!/^[1-5](?:\d\d|xx)$/.test(value)) throw new CliError('A status code (404) or a class (4xx, 5xx).');
  return value;
}
