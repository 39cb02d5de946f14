import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import { DomainError, type FieldErrors } from '../kernel/domain-error';
import type { Environment } from '../platform/config/environment';
import { configuredDuties } from '../platform/config/service-role';
import { Outage } from '../platform/database/outage';
import { SecretSealer } from '../platform/formats/secret-sealer';
import { errorResponseOf } from '../platform/http/exception.filter';
import { ServiceLogger } from '../platform/logging/loggers';
import { EventsService } from '../outbox/events.service';
import { OrdersService } from '../orders/application/orders.service';
import { importFinished } from './import-events';
import { ImportsRepository, type LineResult, type PendingLine } from './imports.repository';
import type { OrderImport } from './order-import.entities';

/** Lines placed per transaction: the batch's orders and their results commit together. */
export const IMPORT_BATCH = 200;
/**
 * Batches of one import in flight at once, each in its own transaction on its own pooled connection: the next
 * batch's lines are read while the others are placed, and PostgreSQL works on several at once.
 */
const BATCHES_AT_ONCE = 2;
/** Imports one instance runs at once: at most BATCHES_AT_ONCE pooled connections each. */
const IMPORTS_PER_INSTANCE = 2;
/** Imports one company runs at once, across instances (CONTRACT §4.11): a third waits queued. */
export const IMPORTS_PER_COMPANY = 2;
/** Lost leases of one import (crashes, database failures) past which it is failed rather than tried again. */
const MAX_ATTEMPTS = 5;
const NOT_PLACED: FieldErrors = { body: ['Not placed: the import failed before this line.'] };

/** The batch's results were not recorded: another worker holds the import now. */
class LeaseLost extends Error {}

/**
 * The errors map POST /order's 400 (or other 4xx) would give for what a placement threw, or null for a
 * failure of the service (5xx): the line is not refused for it, the run stops and is resumed later.
 */
function lineErrors(error: unknown): FieldErrors | null {
  const { status, body } = errorResponseOf(error, '');
  if (status >= 500) return null;
  const { errors, message } = body as { errors?: FieldErrors; message?: string };
  return errors ?? { body: [message ?? 'Refused.'] };
}

/**
 * Runs the bulk imports (CONTRACT §4.11) on instances whose SERVICE_ROLE runs background work (`all`,
 * `worker`). It claims an import under a lease (IMPORT_LEASE_MS, renewed with every batch) and places its
 * pending lines in line order, IMPORT_BATCH per transaction (BATCHES_AT_ONCE transactions at a time), each through OrdersService.placeIn (the rules,
 * statement, event, webhooks and audit row of POST /order); the batch's results are recorded in the same
 * transaction, so a crash loses the whole batch or nothing, and no line is ever placed twice. A batch a
 * statement fails in is placed again line by line, each in its own transaction, so a bad line never stops the
 * others. When no line is left, the import is finished with its `import.completed` event.
 */
@Injectable()
export class ImportWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly enabled: boolean;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** This worker's name on the leases it holds: the instance and this start of it. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly outage: Outage;
  private readonly running = new Map<number, Promise<void>>();
  /** The claims in progress, if any: shutdown waits for them as for the runs. */
  private claiming?: Promise<void>;
  private stopped = false;
  private poll?: NodeJS.Timeout;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly orders: OrdersService,
    private readonly events: EventsService,
    private readonly sealer: SecretSealer,
    private readonly logger: ServiceLogger,
    config: ConfigService<Environment, true>,
  ) {
    this.logger.setContext(ImportWorker.name);
    this.enabled = configuredDuties(config).jobs;
    this.leaseMs = config.get('IMPORT_LEASE_MS', { infer: true });
    this.pollMs = config.get('IMPORT_POLL_INTERVAL_MS', { infer: true });
    this.outage = new Outage(this.logger, 'Bulk imports', this.pollMs);
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.poll = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /** Stops claiming; the imports in progress end their batch and give their lease back for another to resume. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    await this.claiming;
    await Promise.allSettled(this.running.values());
  }

  /** Looks for imports to run now (an upload on this instance), rather than at the next poll. */
  wake(): void {
    if (!this.enabled || this.stopped || this.claiming) return;
    this.claiming = this.claimMore().finally(() => (this.claiming = undefined));
  }

  private async claimMore(): Promise<void> {
    try {
      while (!this.stopped && this.running.size < IMPORTS_PER_INSTANCE) {
        const claimed = await this.imports.claim(this.owner, this.leaseMs, IMPORTS_PER_COMPANY);
        if (!claimed) break;
        const run = this.run(claimed)
          .then(() => this.outage.succeeded())
          .catch((error: unknown) => void this.outage.failed(error))
          .finally(() => {
            this.running.delete(claimed.id);
            this.wake();
          });
        this.running.set(claimed.id, run);
      }
    } catch (error) {
      this.outage.failed(error);
    }
  }

  /**
   * Runs one claimed import, under the lease its claim took, until it is finished, its lease is lost, or `stop`
   * says so (then the lease is given back). A failure of the service ends the run with the lease kept until it
   * expires: another claim resumes the import.
   */
  async run(claimed: OrderImport, stop: () => boolean = () => this.stopped): Promise<void> {
    if (claimed.attempts > MAX_ATTEMPTS) {
      await this.finish(claimed, 'failed');
      return;
    }
    const site = await this.orders.companySiteOf(claimed.companyId);
    const actor: Actor = {
      tokenId: claimed.tokenId,
      userName: claimed.userName,
      requestId: claimed.requestId,
    };
    const inFlight = new Set<Promise<void>>();
    let lost = false;
    let failure: { error: unknown } | undefined;
    let stopped = false;
    for (let after = 0; !lost && !failure;) {
      if (stop()) {
        stopped = true;
        break;
      }
      const batch = await this.imports.pending(claimed.id, after, IMPORT_BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1].line;
      const placing: Promise<void> = this.placeBatch(claimed, site, actor, batch)
        .then(
          (recorded) => void (lost ||= !recorded),
          (error: unknown) => void (failure ??= { error }),
        )
        .finally(() => inFlight.delete(placing));
      inFlight.add(placing);
      if (inFlight.size >= BATCHES_AT_ONCE) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure) throw failure.error;
    if (lost) return;
    if (stopped) await this.imports.release(claimed.id, claimed.leaseOwner!);
    else await this.finish(claimed, 'completed');
  }

  private async finish(claimed: OrderImport, state: 'completed' | 'failed'): Promise<void> {
    await this.imports.transaction(async (manager) => {
      const done = await this.imports.finish(manager, claimed.id, claimed.leaseOwner!, state, NOT_PLACED);
      if (done) await this.events.publish(manager, done.companyId, done.id, [importFinished(done)]);
    });
  }

  /** Places (or, in a dry run, checks) one batch and records its results; false when the lease was lost. */
  private async placeBatch(
    claimed: OrderImport,
    site: string,
    actor: Actor,
    batch: PendingLine[],
  ): Promise<boolean> {
    const lines = batch.map((line) => ({
      line: line.line,
      body: JSON.parse(this.sealer.open(line.body)) as unknown,
    }));
    try {
      if (claimed.dryRun) {
        const results: LineResult[] = [];
        for (const { line, body } of lines) {
          results.push(
            await this.outcome(line, () => this.orders.checkPlacement(claimed.companyId, site, body)),
          );
        }
        await this.imports.transaction((manager) => this.record(manager, claimed, results));
        return true;
      }
      await this.imports.transaction(async (manager) => {
        const results: LineResult[] = [];
        for (const { line, body } of lines) {
          results.push(
            await this.outcome(
              line,
              () => this.orders.placeIn(manager, actor, claimed.companyId, site, body),
              true,
            ),
          );
        }
        await this.record(manager, claimed, results);
      });
      return true;
    } catch (error) {
      if (error instanceof LeaseLost) return false;
      if (claimed.dryRun || lineErrors(error) === null) throw error;
    }
    return this.placeOneByOne(claimed, site, actor, lines);
  }

  /** After a statement failed a batch: each line in its own transaction, a line's 4xx recorded as its result. */
  private async placeOneByOne(
    claimed: OrderImport,
    site: string,
    actor: Actor,
    lines: { line: number; body: unknown }[],
  ): Promise<boolean> {
    for (const { line, body } of lines) {
      let errors: FieldErrors | null;
      try {
        await this.imports.transaction(async (manager) => {
          const order = await this.orders.placeIn(manager, actor, claimed.companyId, site, body);
          await this.record(manager, claimed, [{ line, result: 'placed', orderId: order.id, errors: null }]);
        });
        continue;
      } catch (error) {
        if (error instanceof LeaseLost) return false;
        errors = lineErrors(error);
        if (errors === null) throw error;
      }
      const refused = errors;
      await this.imports.transaction((manager) =>
        this.record(manager, claimed, [{ line, result: 'failed', orderId: null, errors: refused }]),
      );
    }
    return true;
  }

  /**
   * One line's result: placed (or valid), or refused with the errors POST /order would give. In a batch's
   * transaction (`inTransaction`) only the rules' refusals are caught: a failed statement ends the transaction.
   */
  private async outcome(
    line: number,
    work: () => Promise<{ id: number } | void>,
    inTransaction = false,
  ): Promise<LineResult> {
    try {
      const order = await work();
      return order
        ? { line, result: 'placed', orderId: order.id, errors: null }
        : { line, result: 'valid', orderId: null, errors: null };
    } catch (error) {
      const errors = inTransaction && !(error instanceof DomainError) ? null : lineErrors(error);
      if (errors === null) throw error;
      return { line, result: 'failed', orderId: null, errors };
    }
  }

  private async record(manager: EntityManager, claimed: OrderImport, results: LineResult[]): Promise<void> {
    if (!(await this.imports.record(manager, claimed.id, claimed.leaseOwner!, this.leaseMs, results)))
      throw new LeaseLost();
  }
}
