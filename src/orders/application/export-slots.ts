import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type ClientConfig } from 'pg';
import { DataSource } from 'typeorm';

/** How many exports one company may run at once, across every instance (CONTRACT §4.10). */
export const EXPORTS_PER_COMPANY = 2;

/** Gives the slot back; never fails. */
export type ReleaseSlot = () => Promise<void>;

/**
 * The export slots of every company, as PostgreSQL session advisory locks (one per company and slot number)
 * held on one connection of this instance's own. Every instance sees the same locks, and PostgreSQL drops a
 * session's locks when the session ends, so a process that dies gives its slots back at once: there is no
 * lease to expire. The server probes the connection every few seconds, so the slots of a machine that
 * vanished without closing it come back within about 25 s.
 *
 * Should the connection itself drop, its locks go with it while this instance's exports still run: until they
 * finish, other instances may start up to EXPORTS_PER_COMPANY more for that company, never this one.
 */
@Injectable()
export class ExportSlots implements OnApplicationShutdown {
  /** The slots this instance holds (the session's locks are re-entrant, so the session cannot tell). */
  private readonly held = new Set<string>();
  private session?: Client;
  private connecting?: Promise<Client>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Takes a free slot of the company's, or answers null when every one is taken, on any instance. */
  async take(companyId: number): Promise<ReleaseSlot | null> {
    for (let slot = 0; slot < EXPORTS_PER_COMPANY; slot += 1) {
      const key = `orders-export:${companyId}:${slot}`;
      if (this.held.has(key)) continue;
      this.held.add(key);
      try {
        const client = await this.connected();
        if (await this.tryLock(client, key)) return () => this.release(client, key);
      } catch (error) {
        this.held.delete(key);
        throw error;
      }
      this.held.delete(key);
    }
    return null;
  }

  /** After the HTTP server has closed, so the exports still running at shutdown keep their slots to the end. */
  onApplicationShutdown(): void {
    if (this.session) this.drop(this.session);
  }

  private async tryLock(client: Client, key: string): Promise<boolean> {
    try {
      const { rows } = await client.query<{ taken: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken',
        [key],
      );
      return rows[0].taken;
    } catch (error) {
      this.drop(client);
      throw error;
    }
  }

  private async release(client: Client, key: string): Promise<void> {
    // A session that has ended holds no locks any more: nothing to give back.
    await client
      .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
      .catch(() => undefined)
      .finally(() => this.held.delete(key));
  }

  private connected(): Promise<Client> {
    if (this.session) return Promise.resolve(this.session);
    return (this.connecting ??= this.connect().finally(() => (this.connecting = undefined)));
  }

  private async connect(): Promise<Client> {
    const { url, extra } = this.dataSource.options as { url?: string; extra?: ClientConfig };
    const client = new Client({
      ...extra,
      connectionString: url,
      application_name: 'restaurant-orders-api:export-slots',
    });
    client.on('error', () => this.drop(client));
    try {
      await client.connect();
      await client.query(
        'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3',
      );
    } catch (error) {
      this.drop(client);
      throw error;
    }
    this.session = client;
    return client;
  }

  private drop(client: Client): void {
    if (this.session === client) this.session = undefined;
    client.end().catch(() => undefined);
  }
}
