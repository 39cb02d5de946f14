import { Injectable } from '@nestjs/common';
import { DirectSession } from '../../platform/database/direct-session';

/** How many exports one company may run at once, across every instance (CONTRACT §4.10). */
export const EXPORTS_PER_COMPANY = 2;

/** Gives the slot back; never fails. */
export type ReleaseSlot = () => Promise<void>;

/**
 * The export slots of every company, as PostgreSQL session advisory locks (one per company and slot number)
 * held in this instance's direct session (DirectSession: never a pooled connection, which would keep a lock
 * after handing the connection to another client). Every instance sees the same locks, and PostgreSQL drops a
 * session's locks when the session ends, so a process that dies gives its slots back at once: there is no
 * lease to expire. The server probes the session every few seconds, so the slots of a machine that vanished
 * without closing it come back within about 25 s.
 *
 * Should the session itself drop, its locks go with it while this instance's exports still run: until they
 * finish, other instances may start up to EXPORTS_PER_COMPANY more for that company, never this one.
 */
@Injectable()
export class ExportSlots {
  /** The slots this instance holds (the session's locks are re-entrant, so the session cannot tell). */
  private readonly held = new Set<string>();

  constructor(private readonly session: DirectSession) {}

  /** Takes a free slot of the company's, or answers null when every one is taken, on any instance. */
  async take(companyId: number): Promise<ReleaseSlot | null> {
    for (let slot = 0; slot < EXPORTS_PER_COMPANY; slot += 1) {
      const key = `orders-export:${companyId}:${slot}`;
      if (this.held.has(key)) continue;
      this.held.add(key);
      try {
        const [{ taken }] = await this.session.query<{ taken: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken',
          [key],
        );
        if (taken) return () => this.release(key);
      } catch (error) {
        this.held.delete(key);
        throw error;
      }
      this.held.delete(key);
    }
    return null;
  }

  private async release(key: string): Promise<void> {
    // A session that has ended holds no locks any more: nothing to give back.
    await this.session
      .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
      .catch(() => undefined)
      .finally(() => this.held.delete(key));
  }
}
