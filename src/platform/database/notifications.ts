import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ServiceLogger } from '../logging/loggers';
import { Outage } from './outage';

/** The first reconnection's delay; the next ones double while the database stays away (outage.ts). */
const RETRY_MS = 1_000;

export interface Subscriber {
  /** A notification on the channel (sent with pg_notify, delivered when the sender's transaction commits). */
  notified(payload: string): void;
  /** The connection was lost: notifications may have been missed, so whatever they keep fresh is suspect. */
  missed(): void;
}

/**
 * PostgreSQL LISTEN/NOTIFY for the caches an instance keeps (tokens, products): one connection per instance,
 * opened by the first subscriber, which reconnects by itself if the database goes away. A write on any instance
 * notifies in its transaction, and every instance forgets what it kept.
 */
@Injectable()
export class Notifications implements OnModuleDestroy {
  private readonly subscribers = new Map<string, Subscriber[]>();
  private client?: Client;
  private connecting?: Promise<void>;
  private stopped = false;
  private readonly outage: Outage;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly logger: ServiceLogger,
  ) {
    this.logger.setContext(Notifications.name);
    this.outage = new Outage(this.logger, 'Listening for cache invalidations', RETRY_MS);
  }

  /** Resolves once the channel is listened to (or the first attempt failed: it keeps retrying). */
  async subscribe(channel: string, subscriber: Subscriber): Promise<void> {
    const known = this.subscribers.get(channel);
    if (known) known.push(subscriber);
    else this.subscribers.set(channel, [subscriber]);
    if (this.client) await this.client.query(`LISTEN ${channel}`);
    else await (this.connecting ??= this.connect());
  }

  /** Whether notifications are arriving: while not, a cache must not be trusted beyond its own time bound. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { url } = this.dataSource.options as { url?: string };
    const client = new Client({
      connectionString: url,
      application_name: 'restaurant-orders-api:listener',
      connectionTimeoutMillis: 2_000,
    });
    let failed = false;
    const retry = (error: unknown) => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      for (const subscribers of this.subscribers.values())
        for (const subscriber of subscribers) subscriber.missed();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      setTimeout(() => void (this.connecting = this.connect()), this.outage.failed(error)).unref();
    };
    client.on('notification', ({ channel, payload }) => {
      for (const subscriber of this.subscribers.get(channel) ?? []) subscriber.notified(payload ?? '');
    });
    client.on('error', retry);
    try {
      await client.connect();
      for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${channel}`);
      this.client = client;
      this.outage.succeeded();
    } catch (error) {
      retry(error);
    }
  }
}
