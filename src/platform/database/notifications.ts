import { Injectable } from '@nestjs/common';
import { DirectSession } from './direct-session';

export interface Subscriber {
  /** A notification on the channel (sent with pg_notify, delivered when the sender's transaction commits). */
  notified(payload: string): void;
  /** The session was lost: notifications may have been missed, so whatever they keep fresh is suspect. */
  missed(): void;
}

/**
 * PostgreSQL LISTEN/NOTIFY for the caches an instance keeps (tokens, products), on the instance's direct
 * session (never through a transaction-mode pooler, where a LISTEN ends with its transaction), which the first
 * subscriber keeps open and which reopens by itself if the database goes away. A write on any instance notifies
 * in its transaction, and every instance forgets what it kept.
 */
@Injectable()
export class Notifications {
  private readonly subscribers = new Map<string, Subscriber[]>();

  constructor(private readonly session: DirectSession) {
    session.watch({
      opened: async (client) => {
        for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${channel}`);
      },
      lost: () => {
        for (const subscribers of this.subscribers.values())
          for (const subscriber of subscribers) subscriber.missed();
      },
      notified: (channel, payload) => {
        for (const subscriber of this.subscribers.get(channel) ?? []) subscriber.notified(payload);
      },
    });
  }

  /** Resolves once the channel is listened to (or the first attempt failed: it keeps retrying). */
  async subscribe(channel: string, subscriber: Subscriber): Promise<void> {
    const known = this.subscribers.get(channel);
    if (known) known.push(subscriber);
    else this.subscribers.set(channel, [subscriber]);
    await this.session.keepOpen();
    // A session opened before this channel was known does not listen to it yet (LISTEN twice is harmless).
    if (this.session.open) await this.session.query(`LISTEN ${channel}`).catch(() => undefined);
  }

  /**
   * Whether every notification committed more than a second ago has arrived (the session answered lately):
   * while not, a cache must not be trusted; it reads the database instead.
   */
  get listening(): boolean {
    return this.session.up;
  }
}
