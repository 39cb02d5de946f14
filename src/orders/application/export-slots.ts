import { setTimeout as delay } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../../platform/config/environment';
import { Counter, Gauge } from 'prom-client';
import { DirectSession } from '../../platform/database/direct-session';
import { AppMetrics } from '../../platform/metrics/app-metrics';

/** How many exports one company may run at once, across every instance (CONTRACT §4.10). */
export const EXPORTS_PER_COMPANY = 2;

/**
 * How long an export waits for the direct session to say whether a slot is free (an instant statement, unless
 * the link is failing): past it the export is refused with 503 rather than kept waiting.
 */
const SLOT_ANSWER_MS = 500;

/**
 * Why an export cannot start now: this instance runs EXPORTS_PER_INSTANCE already, the company runs
 * EXPORTS_PER_COMPANY already (on any instance), or the company's slots cannot be counted (the direct session
 * does not answer).
 */
export type ExportRefusal = 'instance_busy' | 'company_busy' | 'slots_unavailable';

/** Gives the slots back at once; the first call does, later ones do nothing. Never fails. */
export type ReleaseSlot = () => void;

/**
 * The export slots: this instance's (a count, EXPORTS_PER_INSTANCE, so that exports of many companies cannot
 * take every core of it) and every company's, as PostgreSQL session advisory locks (one per company and slot
 * number) held in this instance's direct session (DirectSession: never a pooled connection, which would keep a
 * lock after handing the connection to another client). Every instance sees the same locks, and PostgreSQL
 * drops a session's locks when the session ends, so a process that dies gives its slots back at once: there is
 * no lease to expire. The server probes the session every few seconds, so the slots of a machine that vanished
 * without closing it come back within about 25 s.
 *
 * While the session does not answer, no export starts (the company's count cannot be known); should it drop,
 * its locks go with it while this instance's exports still run: until they finish, other instances may start
 * up to EXPORTS_PER_COMPANY more for that company, never this one.
 */
@Injectable()
export class ExportSlots {
  /** The company slots this instance holds (the session's locks are re-entrant, so the session cannot tell). */
  private readonly held = new Set<string>();
  private running = 0;
  private readonly perInstance: number;
  private readonly refusals: Counter<'reason'>;

  constructor(
    private readonly session: DirectSession,
    config: ConfigService<Environment, true>,
    metrics: AppMetrics,
  ) {
    this.perInstance = config.get('EXPORTS_PER_INSTANCE', { infer: true });
    const slots = () => this.running;
    new Gauge({
      name: 'exports_running',
      help: 'Exports running on this instance (at most EXPORTS_PER_INSTANCE)',
      registers: [metrics.registry],
      collect() {
        this.set(slots());
      },
    });
    this.refusals = new Counter({
      name: 'export_refusals_total',
      help:
        'Exports refused before they started, by reason: instance_busy, company_busy (429), ' +
        'slots_unavailable (503: the direct database session does not answer)',
      labelNames: ['reason'] as const,
      registers: [metrics.registry],
    });
  }

  /** Takes a slot of this instance's and a free one of the company's, or says why it cannot. */
  async take(companyId: number): Promise<ReleaseSlot | ExportRefusal> {
    const taken = await this.tryTake(companyId);
    if (typeof taken === 'string') this.refusals.inc({ reason: taken });
    return taken;
  }

  private async tryTake(companyId: number): Promise<ReleaseSlot | ExportRefusal> {
    if (!(await this.session.answers())) return 'slots_unavailable';
    if (this.running >= this.perInstance) return 'instance_busy';
    this.running += 1;
    // undefined: the session failed the statement (and is being reopened).
    const key = await this.takeCompanySlot(companyId).catch(() => undefined);
    if (typeof key !== 'string') {
      this.running -= 1;
      return key === null ? 'company_busy' : 'slots_unavailable';
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.held.delete(key);
      // Sent on the session ahead of any later try at this slot, which therefore finds it free.
      this.unlock(key);
    };
  }

  /** The key of the company slot taken, or null when every one is taken, on any instance. */
  private async takeCompanySlot(companyId: number): Promise<string | null> {
    for (let slot = 0; slot < EXPORTS_PER_COMPANY; slot += 1) {
      const key = `orders-export:${companyId}:${slot}`;
      if (this.held.has(key)) continue;
      this.held.add(key);
      const attempt = this.session.query<{ taken: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken',
        [key],
      );
      const answer = await Promise.race([attempt, delay(SLOT_ANSWER_MS, undefined, { ref: false })]).catch(
        (error: unknown) => {
          this.held.delete(key);
          throw error;
        },
      );
      if (answer === undefined) {
        // Too late for this export; a lock the answer may still bring is given back, never kept.
        void attempt
          .then(([{ taken }]) => taken && this.unlock(key))
          .catch(() => undefined)
          .finally(() => this.held.delete(key));
        throw new Error('The direct session did not answer in time.');
      }
      if (answer[0].taken) return key;
      this.held.delete(key);
    }
    return null;
  }

  /** A session that has ended holds no locks any more: then there is nothing to give back. */
  private unlock(key: string): void {
    void this.session
      .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
      .catch(() => undefined);
  }
}
