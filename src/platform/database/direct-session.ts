import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, type ClientConfig, type QueryResultRow } from 'pg';
import { ServiceLogger } from '../logging/loggers';
import { Outage } from './outage';

/** The injection token of the direct session's connection settings (DATABASE_DIRECT_URL, else DATABASE_URL). */
export const DIRECT_SESSION_CONFIG = Symbol('DIRECT_SESSION_CONFIG');

/** The first reopening's delay; the next ones double while the database stays away (outage.ts). */
const REOPEN_MS = 1_000;

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
 * (`keepOpen`), it is reopened with backoff whenever it is lost. PostgreSQL probes it every few seconds, so a
 * session whose peer vanished ends within about 25 s, and with it its locks.
 */
@Injectable()
export class DirectSession implements OnApplicationShutdown {
  private client?: Client;
  private opening?: Promise<Client>;
  private reopening = false;
  private kept = false;
  private stopped = false;
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

  watch(watcher: SessionWatcher): void {
    this.watchers.push(watcher);
  }

  /** Opens the session and keeps it open from now on; resolves after the first try (it keeps retrying). */
  async keepOpen(): Promise<void> {
    this.kept = true;
    await this.session().catch(() => undefined);
  }

  /** A statement in the session (opened first when it is not); a failure ends the session, as a lost one. */
  async query<Row extends QueryResultRow>(text: string, values?: unknown[]): Promise<Row[]> {
    const client = await this.session();
    try {
      return (await client.query<Row>(text, values)).rows;
    } catch (error) {
      this.lose(client, error);
      throw error;
    }
  }

  /** After the HTTP server has closed, so what still runs at shutdown (an export) keeps its locks to the end. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.client) await this.end(this.client);
  }

  private session(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    return (this.opening ??= this.connect().finally(() => (this.opening = undefined)));
  }

  private async connect(): Promise<Client> {
    const client = new Client(this.config);
    client.on('error', (error) => this.lose(client, error));
    client.on('notification', ({ channel, payload }) => {
      for (const watcher of this.watchers) watcher.notified?.(channel, payload ?? '');
    });
    try {
      await client.connect();
      await client.query(
        'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3',
      );
      for (const watcher of this.watchers) await watcher.opened?.(client);
    } catch (error) {
      this.lose(client, error);
      throw error;
    }
    this.client = client;
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
    if (this.client === client) this.client = undefined;
    await client.end().catch(() => undefined);
  }
}
