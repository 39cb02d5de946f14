import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * The transaction a use case runs in. Normally each `transaction()` is its own; under `around()` every
 * `transaction()` of the same async flow joins the one transaction `around()` opened, so something wrapped
 * around a whole request (an idempotency key) commits or rolls back together with what the request changed.
 */
@Injectable()
export class UnitOfWork {
  private readonly ambient = new AsyncLocalStorage<EntityManager>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in the surrounding transaction when there is one, else in a new one. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const surrounding = this.ambient.getStore();
    return surrounding ? work(surrounding) : this.dataSource.transaction(work);
  }

  /**
   * Runs `work` whose one write is a single statement (atomic by itself) in the surrounding transaction when
   * there is one, else on the pool with no transaction around it: no BEGIN and no COMMIT, two round trips fewer.
   * The reads `work` makes before its write (validation) see committed data, as they would in a transaction of
   * their own at READ COMMITTED.
   */
  statement<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(this.ambient.getStore() ?? this.dataSource.manager);
  }

  /**
   * Opens a transaction that every `transaction()` called from `work` joins (or joins the surrounding one).
   * Work under it must read through the manager it is given (or `transaction()`), never through another pooled
   * connection: holding one connection while waiting for a second is how a pool starves.
   */
  around<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const surrounding = this.ambient.getStore();
    if (surrounding) return work(surrounding);
    return this.dataSource.transaction((manager) => this.ambient.run(manager, () => work(manager)));
  }
}
