import type {
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/** An event a change writes to the outbox, as the metrics count it. */
export interface CommittedEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Holds the events a transaction writes until it commits, then hands them to `onCommit`; a rollback (of the
 * transaction or of any savepoint in it) drops what it held, so a counter never counts a change that did
 * not happen. A TypeORM subscriber, added to the DataSource's list by AppMetrics.
 */
export class CommittedEvents implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, CommittedEvent[]>();

  constructor(private readonly onCommit: (drafts: CommittedEvent[]) => void) {}

  add(manager: EntityManager, drafts: CommittedEvent[]): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) return this.onCommit(drafts);
    this.pending.set(runner, [...(this.pending.get(runner) ?? []), ...drafts]);
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    const drafts = this.pending.get(queryRunner);
    if (!drafts || queryRunner.isTransactionActive) return;
    this.pending.delete(queryRunner);
    this.onCommit(drafts);
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    this.pending.delete(queryRunner);
  }
}
