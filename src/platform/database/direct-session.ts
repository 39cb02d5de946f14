import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, type ClientConfig, type QueryResultRow } from 'pg';
import { ServiceLogger } from '../logging/loggers';
import { Outage } from './outage';

/** The injection token of the direct session's connection settings (DATABASE_DIRECT_URL, else DATABASE_URL). */
export const DIRECT_SESSION_CONFIG = Symbol('DIRECT_SESSION_CONFIG');

/** The first reopening's delay; the next ones double while the database stays away (outage.ts). */
const REOPEN_MS = 1_000;
/** How often a kept session is asked whether it still answers. */
export const HEARTBEAT_MS = 250;
/**
 * The session is up while a question asked of it within this long has been answered. PostgreSQL sends a
 * listener the notifications committed before a statement ahead of that statement's answer, on the same
 * connection, so while the session is up, every invalidation committed more than this long ago has arrived:
 * a cache trusted only then refuses a revoked token within a second (CONTRACT §9), whatever the link does.
 */
export const UP_WITHIN_MS = 750;
/**
 * Every statement of the session is instant (LISTEN, an advisory lock, SELECT 1): one unanswered this long
 * means a link that drops packets or a frozen server, and the session is given up and reopened. Connecting
 * (with the LISTENs) gets twice as long.
 */
const ANSWER_TIMEOUT_MS = 1_000;

/** Someone whose state lives in the session: told when it opens (to restore it) and when it is lost. */
export interface SessionWatcher {
  /** The session has just been opened (or reopened), before anyone else uses it: restore what lives in it. */
  opened?(session: Client): Promise<void>;
  /** The session ended: its LISTENs and advisory locks are gone. */
  lost?(): void;
  /** A notification on a channel the session listens to. */
  notified?(channel: string, payload: string): void;
}

/**
 * The one connection of this instance that is a session of its own on the primary (DATABASE_DIRECT_URL, so
 * never a transaction-mode pooler's): what must outlive a transaction lives here, the LISTEN of the caches'
 * invalidations and the export slots' advisory locks. Opened on first use; once someone asks to keep it open
 * (`keepOpen`), it is asked `SELECT 1` every HEARTBEAT_MS and reopened with backoff whenever it is lost: closed,
 * refused, or silent for ANSWER_TIMEOUT_MS. `up` says whether it answered lately; what depends on it does
 * without it meanwhile (the caches read the database, exports are refused with 503). PostgreSQL probes it
 * every few seconds, so a session whose peer vanished ends on the server within about 25 s, and with it its
 * locks.
 */
@Injectable()
export class DirectSession implements OnApplicationShutdown {
  private client?: Client;
  private opening?: Promise<Client>;
  private reopening = false;
  private kept = false;
  private stopped = false;
  private heartbeat?: NodeJS.Timeout;
  private beating = false;
  /** When the latest question that has been answered was asked (0: none yet on this connection). */
  private answeredAskedAt = 0;
  /** The statement asked for last: the next one waits for it. */
  private previous: Promise<unknown> = Promise.resolve();
  private readonly ended = new WeakSet<Client>();
  private readonly watchers: SessionWatcher[] = [];
  private readonly outage: Outage;

  constructor(
    @Inject(DIRECT_SESSION_CONFIG) private readonly config: ClientConfig,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(DirectSession.name);
    this.outage = new Outage(this.logger, 'The direct database session', REOPEN_MS);
  }

  /** Whether the session is open now. */
  get open(): boolean {
    return this.client !== undefined;
  }

  /** Open, and answered a question asked within the last UP_WITHIN_MS: whatever it was sent has arrived. */
  get up(): boolean {
    return this.client !== undefined && Date.now() - this.answeredAskedAt < UP_WITHIN_MS;
  }

  watch(watcher: SessionWatcher): void {
    this.watchers.push(watcher);
  }

  /** Opens the session and keeps it open from now on; resolves after the first try (it keeps retrying). */
  async keepOpen(): Promise<void> {
    this.kept = true;
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS).unref();
    await this.session().catch(() => undefined);
  }

  /**
   * A statement in the session (opened first when it is not, unless it is kept: a kept session that is not open
   * is being reopened, and the statement fails at once instead of waiting on a link that may never answer); a
   * failure ends the session, as a lost one. Statements run one at a time, in the order they were asked for.
   */
  query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<Row[]> {
    const run = this.previous.then(() => this.run<Row>(text, values));
    this.previous = run.catch(() => undefined);
    return run;
  }

  private async run<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<Row[]> {
    const client = this.kept ? this.client : await this.session();
    if (!client) throw new Error('The direct database session is being reopened.');
    const askedAt = Date.now();
    const unanswered = setTimeout(() => this.giveUpUnlessAnswered(client, askedAt), ANSWER_TIMEOUT_MS);
    try {
      const { rows } = await client.query<Row>(text, values);
      if (this.client === client) this.answeredAskedAt = Math.max(this.answeredAskedAt, askedAt);
      return rows;
    } catch (error) {
      this.lose(client, error);
      throw error;
    } finally {
      clearTimeout(unanswered);
    }
  }

  /**
   * The verdict on a statement unanswered for ANSWER_TIMEOUT_MS, given after the socket has been read once
   * more (setImmediate runs after the loop's poll phase): a busy event loop runs this timer late, ahead of an
   * answer that arrived meanwhile and waits in the socket, and that is not a silent link.
   */
  private giveUpUnlessAnswered(client: Client, askedAt: number): void {
    setImmediate(() => {
      if (this.client === client && this.answeredAskedAt >= askedAt) return;
      this.lose(client, new Error(`The direct database session did not answer within ${ANSWER_TIMEOUT_MS} ms.`));
    });
  }

  /**
   * Whether the session answers: `up`, or else whether it answers a question asked now within UP_WITHIN_MS. An
   * event loop busy elsewhere leaves the heartbeat's questions unasked or their answers unread, which is not a
   * silent link; a silent link stays silent, and the caller hears so within UP_WITHIN_MS.
   */
  async answers(): Promise<boolean> {
    if (this.up) return true;
    if (!this.client) return false;
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      this.query('SELECT 1').catch(() => undefined),
      new Promise((resolve) => (waited = setTimeout(resolve, UP_WITHIN_MS))),
    ]);
    clearTimeout(waited);
    return this.up;
  }

  /** After the HTTP server has closed, so what still runs at shutdown (an export) keeps its locks to the end. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    if (this.client) await this.end(this.client);
  }

  /** Asks an open session whether it still answers (one question at a time); reopening is lose()'s. */
  private beat(): void {
    if (!this.client || this.beating) return;
    this.beating = true;
    void this.query('SELECT 1')
      .catch(() => undefined)
      .finally(() => (this.beating = false));
  }

  private session(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    return (this.opening ??= this.connect().finally(() => (this.opening = undefined)));
  }

  private async connect(): Promise<Client> {
    const client = new Client({ ...this.config, connectionTimeoutMillis: 2 * ANSWER_TIMEOUT_MS });
    client.on('error', (error) => this.lose(client, error));
    client.on('notification', ({ channel, payload }) => {
      for (const watcher of this.watchers) watcher.notified?.(channel, payload ?? '');
    });
    let askedAt: number;
    let opened = false;
    // Opening (the LISTENs and locks restored too) is bounded like a statement, its verdict given the same way.
    const unanswered = setTimeout(
      () => setImmediate(() => opened || void client.end().catch(() => undefined)),
      2 * ANSWER_TIMEOUT_MS,
    );
    try {
      await client.connect();
      askedAt = Date.now();
      await client.query(
        'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3',
      );
      for (const watcher of this.watchers) await watcher.opened?.(client);
      opened = true;
    } catch (error) {
      this.lose(client, error);
      throw error;
    } finally {
      clearTimeout(unanswered);
    }
    this.client = client;
    this.answeredAskedAt = askedAt;
    this.outage.succeeded();
    return client;
  }

  private lose(client: Client, error: unknown): void {
    if (this.ended.has(client)) return;
    void this.end(client);
    for (const watcher of this.watchers) watcher.lost?.();
    if (!this.kept || this.stopped || this.reopening) return;
    this.reopening = true;
    setTimeout(() => {
      this.reopening = false;
      if (!this.stopped) void this.session().catch(() => undefined);
    }, this.outage.failed(error)).unref();
  }

  private async end(client: Client): Promise<void> {
    this.ended.add(client);
    if (this.client === client) {
      this.client = undefined;
      this.answeredAskedAt = 0;
    }
    // With a statement unanswered, end() destroys the socket instead of waiting on a link that drops packets.
    await client.end().catch(() => undefined);
  }
}
